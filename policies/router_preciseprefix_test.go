package policies

import (
	"testing"
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// tokReq is a token-exact Request of n tokens starting at first.
func tokReq(id string, first, n int) *traces.Request {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	return &traces.Request{ID: id, TokenIDs: ids, InputTokens: n}
}

// storedFor is the BlockStored event of req's full blocks of size bs.
func storedFor(req *traces.Request, bs, blocks int) kvevents.Decoded {
	hs := kvevents.ChainHashes(nil, traces.PromptTokens(req), bs, 0)[:blocks]
	return kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{{Kind: kvevents.Stored, Hashes: hs, BlockSize: bs}}}}
}

func boundPrecise(t *testing.T, p Params, n int) (Router, *kvevents.Index) {
	t.Helper()
	r := mustRouter(t, "precise-prefix", p, 1)
	idx, err := r.(KVEventRouter).BindKVEvents(n)
	if err != nil {
		t.Fatal(err)
	}
	return r, idx
}

func TestPrecisePrefixPick(t *testing.T) {
	req := tokReq("r", 0, 64) // four 16-token blocks
	tests := []struct {
		name     string
		p        Params
		inFlight []int
		held     map[int]int // backend → leading blocks of req held
		want     int
		reason   string
		hit      int
	}{
		{"longest prefix wins", nil, []int{0, 0, 0}, map[int]int{0: 1, 2: 3}, 2, "prefix", 48},
		{"whole prompt capped before last token", nil, []int{0, 0, 0}, map[int]int{1: 4}, 1, "prefix", 48},
		{"load outweighs a short prefix", Params{"queue_weight": traces.ParamFloat(2)}, []int{0, 9, 9}, map[int]int{1: 1}, 0, "load", 0},
		{"short prefix outweighs load by default", nil, []int{0, 9, 9}, map[int]int{1: 1}, 1, "prefix", 16},
		{"prefix outweighs mild load", Params{"queue_weight": traces.ParamFloat(2)}, []int{0, 1, 1}, map[int]int{1: 4}, 1, "prefix", 48},
		{"no cache: least loaded", nil, []int{3, 1, 2}, nil, 1, "load", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, idx := boundPrecise(t, tt.p, len(tt.inFlight))
			for b, n := range tt.held {
				idx.Apply(b, storedFor(req, 16, n))
			}
			ch := mustPick(t, r, req, State{Backends: fleet(tt.inFlight...)})
			if ch.Backend != tt.want || ch.Reason != tt.reason || ch.PredictedHitTokens != tt.hit {
				t.Errorf("pick %d %q hit %d, want %d %q %d", ch.Backend, ch.Reason, ch.PredictedHitTokens,
					tt.want, tt.reason, tt.hit)
			}
		})
	}
}

// TestPrecisePrefixLateEvents: events that arrive after a pick do not
// change it; the next pick sees them.
func TestPrecisePrefixLateEvents(t *testing.T) {
	r, idx := boundPrecise(t, nil, 2)
	req := tokReq("r", 0, 40)
	bs := fleet(0, 0)
	first := mustPick(t, r, req, State{Backends: bs})
	if first.Reason != "load" || first.PredictedHitTokens != 0 {
		t.Fatalf("first pick %+v, want a load pick with no predicted hit", first)
	}
	idx.Apply(1-first.Backend, storedFor(req, 16, 2)) // the other backend computed it meanwhile
	second := mustPick(t, r, req, State{Backends: bs})
	if second.Backend != 1-first.Backend || second.PredictedHitTokens != 32 {
		t.Errorf("second pick %+v, want backend %d with 32 tokens", second, 1-first.Backend)
	}
}

// TestPrecisePrefixDelayedDelivery: events delivered with a lag become
// visible when the clock reaches them.
func TestPrecisePrefixDelayedDelivery(t *testing.T) {
	r, idx := boundPrecise(t, nil, 2)
	req := tokReq("r", 0, 40)
	idx.Deliver(100*time.Millisecond, 1, storedFor(req, 16, 2))
	for _, s := range []struct {
		now  time.Duration
		want int
	}{{50 * time.Millisecond, 0}, {100 * time.Millisecond, 32}} {
		ch := mustPick(t, r, req, State{Now: s.now, Backends: fleet(0, 0)})
		if got := ch.PredictedHitTokens; ch.Backend == 1 && got != s.want || ch.Backend == 0 && got != 0 {
			t.Errorf("at %v: %+v", s.now, ch)
		}
		if s.want > 0 && ch.Backend != 1 {
			t.Errorf("at %v: picked %d, want the holder 1", s.now, ch.Backend)
		}
	}
}

func TestPrecisePrefixUnreachableFallsBack(t *testing.T) {
	r, idx := boundPrecise(t, nil, 2)
	req := tokReq("r", 0, 40)
	idx.Apply(1, storedFor(req, 16, 2))
	idx.Note(0, func(s *kvevents.Stats) { s.Unreachable = "tcp://127.0.0.1:1: connection refused" })
	ch := mustPick(t, r, req, State{Backends: fleet(0, 3)})
	if ch.Backend != 0 || ch.Reason != "fallback-load" {
		t.Errorf("pick %+v, want the least loaded backend 0 by fallback-load", ch)
	}
}

func TestPrecisePrefixTextPrompt(t *testing.T) {
	r, idx := boundPrecise(t, Params{"tokenizer": traces.ParamString("whitespace"), "block_size": traces.ParamInt(2)}, 2)
	req := &traces.Request{ID: "t", Prompt: "the quick brown fox jumps over the lazy dog"}
	enc, _ := tokenizer.New("whitespace")
	hs := kvevents.ChainHashes(nil, enc.Encode(req.Prompt), 2, 0)
	idx.Apply(1, kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{{Kind: kvevents.Stored, Hashes: hs, BlockSize: 2}}}})
	ch := mustPick(t, r, req, State{Backends: fleet(0, 0)})
	if ch.Backend != 1 || ch.Reason != "prefix" || ch.PredictedHitTokens == 0 {
		t.Errorf("pick %+v, want the holder 1 by prefix", ch)
	}
}

func TestPrecisePrefixErrors(t *testing.T) {
	r := mustRouter(t, "precise-prefix", nil, 1)
	if _, err := r.Pick(tokReq("r", 0, 8), State{Backends: fleet(0)}); err == nil {
		t.Error("Pick without a bound index succeeded")
	}
	if _, err := r.(KVEventRouter).BindKVEvents(kvevents.MaxBackends + 1); err == nil {
		t.Error("65 backends accepted")
	}
	for _, p := range []Params{{"block_size": traces.ParamInt(0)}, {"tokenizer": traces.ParamString("bpe")}, {"prefix_weight": traces.ParamInt(-1)}} {
		if _, err := NewRouter("precise-prefix", p, nil); err == nil {
			t.Errorf("params %v accepted", p)
		}
	}
}

// TestPrecisePrefixTokenHashes: with hashes=tokens the router finds blocks
// an engine reported under hashes it cannot reproduce.
func TestPrecisePrefixTokenHashes(t *testing.T) {
	req := tokReq("r", 0, 40)
	ev := kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{{Kind: kvevents.Stored,
		Hashes: []uint64{0xdead, 0xbeef}, Tokens: req.TokenIDs[:32], BlockSize: 16}}}}
	for _, tt := range []struct {
		hashes string
		hit    int
	}{{"engine", 0}, {"tokens", 32}} {
		r, idx := boundPrecise(t, Params{"hashes": traces.ParamString(tt.hashes)}, 2)
		idx.Apply(1, ev)
		if ch := mustPick(t, r, req, State{Backends: fleet(0, 0)}); ch.Backend == 1 && ch.PredictedHitTokens != tt.hit ||
			tt.hit > 0 && ch.Backend != 1 {
			t.Errorf("hashes=%s: pick %+v, want predicted %d tokens", tt.hashes, ch, tt.hit)
		}
	}
}
