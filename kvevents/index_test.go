package kvevents

import (
	"slices"
	"testing"
	"time"
)

func stored(bs int, hs ...uint64) Event { return Event{Kind: Stored, Hashes: hs, BlockSize: bs} }

func batch(evs ...Event) Decoded { return Decoded{Batch: Batch{Events: evs}} }

func TestIndexMatch(t *testing.T) {
	x, err := NewIndex(3, 16, 0)
	if err != nil {
		t.Fatal(err)
	}
	x.Apply(0, batch(stored(16, 1, 2, 3)))
	x.Apply(1, batch(stored(16, 1, 2)))
	x.Apply(2, batch(stored(16, 2, 3)))
	tests := []struct {
		name   string
		hashes []uint64
		want   []int
	}{
		{"full", []uint64{1, 2, 3, 4}, []int{3, 2, 0}},
		{"first miss", []uint64{9, 2, 3}, []int{0, 0, 0}},
		{"empty", nil, []int{0, 0, 0}},
		{"all held", []uint64{1, 2}, []int{2, 2, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := x.Match(tt.hashes, nil); !slices.Equal(got, tt.want) {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIndexEvents(t *testing.T) {
	tests := []struct {
		name    string
		evs     []Event
		want    []int // Match of hashes 1,2,3 for backend 0 and 1
		blocks0 int
		check   func(t *testing.T, s Stats)
	}{
		{"removed", []Event{stored(16, 1, 2, 3), {Kind: Removed, Hashes: []uint64{2}}}, []int{1, 3}, 2, nil},
		{"remove unknown", []Event{{Kind: Removed, Hashes: []uint64{42}}}, []int{0, 3}, 0, nil},
		{"cleared", []Event{stored(16, 1, 2), {Kind: Cleared}}, []int{0, 3}, 0,
			func(t *testing.T, s Stats) {
				if s.Restarts != 1 {
					t.Errorf("restarts %d, want 1", s.Restarts)
				}
			}},
		{"block size mismatch", []Event{stored(32, 1, 2, 3), stored(32, 4)}, []int{0, 3}, 0,
			func(t *testing.T, s Stats) {
				if s.BlockSizeMismatch != 2 || s.FirstProblem == "" {
					t.Errorf("mismatch %d problem %q, want 2 and a description", s.BlockSizeMismatch, s.FirstProblem)
				}
			}},
		{"duplicate store", []Event{stored(16, 1), stored(16, 1, 2)}, []int{2, 3}, 2, nil},
		{"overflow", []Event{stored(16, 1, 2, 3, 4, 5)}, []int{3, 3}, 4,
			func(t *testing.T, s Stats) {
				if s.Overflow != 1 {
					t.Errorf("overflow %d, want 1", s.Overflow)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := NewIndex(2, 16, 4)
			x.Apply(1, batch(stored(16, 1, 2, 3)))
			x.Apply(0, batch(tt.evs...))
			if got := x.Match([]uint64{1, 2, 3}, nil); !slices.Equal(got, tt.want) {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
			s := x.Stats()[0]
			if s.Blocks != tt.blocks0 {
				t.Errorf("blocks %d, want %d", s.Blocks, tt.blocks0)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestIndexRestartKeepsOthers(t *testing.T) {
	x, _ := NewIndex(2, 16, 0)
	x.Apply(0, batch(stored(16, 1, 2)))
	x.Apply(1, batch(stored(16, 1, 2)))
	x.Restart(0)
	if got := x.Match([]uint64{1, 2}, nil); !slices.Equal(got, []int{0, 2}) {
		t.Errorf("Match after restart = %v, want [0 2]", got)
	}
	if x.Len() != 2 || x.Stats()[0].Restarts != 1 {
		t.Errorf("len %d restarts %d, want 2 and 1", x.Len(), x.Stats()[0].Restarts)
	}
}

func TestIndexDeliverAdvance(t *testing.T) {
	x, _ := NewIndex(1, 16, 0)
	x.Deliver(20*time.Millisecond, 0, batch(stored(16, 2)))
	x.Deliver(10*time.Millisecond, 0, batch(stored(16, 1)))
	x.Deliver(20*time.Millisecond, 0, batch(Event{Kind: Removed, Hashes: []uint64{1}}))
	for _, step := range []struct {
		now  time.Duration
		want int
	}{{5 * time.Millisecond, 0}, {10 * time.Millisecond, 1}, {19 * time.Millisecond, 1}, {20 * time.Millisecond, 0}} {
		x.Advance(step.now)
		if got := x.Match([]uint64{1, 2}, nil)[0]; got != step.want {
			t.Errorf("at %v: match %d, want %d", step.now, got, step.want)
		}
	}
}

func TestNewIndexBounds(t *testing.T) {
	for _, n := range []int{0, MaxBackends + 1} {
		if _, err := NewIndex(n, 16, 0); err == nil {
			t.Errorf("NewIndex(%d) succeeded", n)
		}
	}
	if _, err := NewIndex(MaxBackends, 0, 0); err == nil {
		t.Error("block size 0 accepted")
	}
	x, _ := NewIndex(MaxBackends, 1, 0)
	x.Apply(63, batch(stored(1, 5)))
	if got := x.Match([]uint64{5}, nil)[63]; got != 1 {
		t.Errorf("backend 63 match %d, want 1", got)
	}
}

// TestIndexRehash: with rehash the index keys blocks by the chain of
// their token ids, whatever hashes the engine sent, so a router computing
// ChainHashes finds them; removes by the engine's hashes still apply.
func TestIndexRehash(t *testing.T) {
	toks := make([]int, 64)
	for i := range toks {
		toks[i] = 7 * i
	}
	own := ChainHashes(nil, toks, 16, 0)
	x, _ := NewIndex(2, 16, 0)
	x.SetHashes(HashesTokens)
	// The engine's hashes are opaque numbers (vLLM: sha256 bytes folded to 64 bits).
	x.Apply(0, batch(Event{Kind: Stored, Hashes: []uint64{901, 902}, Tokens: toks[:32], BlockSize: 16}))
	x.Apply(0, batch(Event{Kind: Stored, Hashes: []uint64{903, 904}, Parent: 902, HasParent: true, Tokens: toks[32:], BlockSize: 16}))
	if got := x.Match(own, nil); !slices.Equal(got, []int{4, 0}) {
		t.Fatalf("Match = %v, want [4 0]", got)
	}
	x.Apply(0, batch(Event{Kind: Removed, Hashes: []uint64{903}}))
	if got := x.Match(own, nil)[0]; got != 2 {
		t.Errorf("after removing the third block: match %d, want 2", got)
	}
	x.Apply(1, batch(Event{Kind: Stored, Hashes: []uint64{1}, Parent: 77, HasParent: true, Tokens: toks[:16], BlockSize: 16}))
	x.Apply(1, batch(Event{Kind: Stored, Hashes: []uint64{2}, Tokens: toks[:8], BlockSize: 16}))
	if s := x.Stats()[1]; s.Malformed != 1 || s.Orphans != 1 || s.Blocks != 1 {
		t.Errorf("unknown parent and short tokens: stats %+v, want 1 orphan block and 1 malformed event", s)
	}
	x.Apply(0, batch(Event{Kind: Cleared}))
	if x.Len() != 1 {
		t.Errorf("%d blocks after backend 0's AllBlocksCleared, want backend 1's one", x.Len())
	}
}

// TestIndexHashModes checks how a backend's blocks are keyed: auto turns
// to engine hashes on a stream whose hashes are the chain of its token
// ids (the mock's) and to recomputed ones otherwise (vLLM's, or
// llm-d-inference-sim's with its parent 0 for a chain's first block).
func TestIndexHashModes(t *testing.T) {
	toks := make([]int, 32)
	for i := range toks {
		toks[i] = i + 1
	}
	chain := ChainHashes(nil, toks, 16, 0)
	tests := []struct {
		name   string
		mode   HashMode
		first  Event // the stream's first BlockStored
		second Event // a removal, in the stream's own hashes
		want   string
		held   int // leading blocks of chain held after first
		after  int // and after second
	}{
		{"auto on the mock", HashesAuto, Event{Kind: Stored, Hashes: chain, Tokens: toks, BlockSize: 16},
			Event{Kind: Removed, Hashes: chain[1:]}, "engine", 2, 1},
		{"auto on foreign hashes", HashesAuto, Event{Kind: Stored, Hashes: []uint64{7, 8}, Tokens: toks, BlockSize: 16},
			Event{Kind: Removed, Hashes: []uint64{8}}, "tokens", 2, 1},
		{"tokens, parent 0 starts a chain", HashesTokens,
			Event{Kind: Stored, Hashes: []uint64{7, 8}, HasParent: true, Parent: 0, Tokens: toks, BlockSize: 16},
			Event{Kind: Removed, Hashes: []uint64{8}}, "tokens", 2, 1},
		{"engine on foreign hashes", HashesEngine, Event{Kind: Stored, Hashes: []uint64{7, 8}, Tokens: toks, BlockSize: 16},
			Event{Kind: Removed, Hashes: []uint64{8}}, "engine", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := NewIndex(1, 16, 0)
			x.SetHashes(tt.mode)
			x.Apply(0, Decoded{Batch: Batch{Events: []Event{tt.first}}})
			if got := x.Match(chain, nil)[0]; got != tt.held {
				t.Errorf("held %d leading blocks, want %d", got, tt.held)
			}
			x.Apply(0, Decoded{Batch: Batch{Events: []Event{tt.second}}})
			if got := x.Match(chain, nil)[0]; got != tt.after {
				t.Errorf("after the removal held %d, want %d", got, tt.after)
			}
			if st := x.Stats()[0]; st.Hashes != tt.want || st.Malformed != 0 {
				t.Errorf("mode %q malformed %d, want %q and 0", st.Hashes, st.Malformed, tt.want)
			}
		})
	}
}
