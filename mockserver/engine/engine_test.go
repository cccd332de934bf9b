package engine

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// arrival is a request added to the engine at a virtual time.
type arrival struct {
	at  time.Duration
	req Request
}

// drive runs e in virtual time: requests are added when the clock reaches
// them, the engine steps back to back, idle gaps are skipped. It stops
// when every request is done or after limit steps (a test failure).
func drive(t testing.TB, e *Engine, arrivals []arrival, limit int) []Step {
	t.Helper()
	var steps []Step
	var now time.Duration
	next := 0
	for i := 0; i < limit; i++ {
		for next < len(arrivals) && arrivals[next].at <= now {
			r := arrivals[next].req
			if err := e.Add(now, &r); err != nil {
				t.Fatalf("add %s: %v", r.ID, err)
			}
			next++
		}
		if e.Idle() {
			if next == len(arrivals) {
				return steps
			}
			now = arrivals[next].at
			continue
		}
		st := e.Step(now)
		steps = append(steps, st)
		now = st.End()
	}
	t.Fatalf("engine not done after %d steps", limit)
	return nil
}

// prompt returns n deterministic token ids starting from seed.
func prompt(n, seed int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = (seed*7919 + i*104729 + seed*i) % VocabSize
	}
	return p
}

// find returns the first event of id matching pred, with its step's end.
func find(steps []Step, id string, pred func(Event) bool) (Event, time.Duration, bool) {
	for _, st := range steps {
		for _, ev := range st.Events {
			if ev.ID == id && pred(ev) {
				return ev, st.End(), true
			}
		}
	}
	return Event{}, 0, false
}

func isFirst(ev Event) bool    { return ev.First }
func isAdmitted(ev Event) bool { return ev.Admitted }

func mustNew(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSamePromptTwiceHitsWholeBlocks(t *testing.T) {
	tests := []struct {
		name       string
		promptLen  int
		wantCached int
	}{
		{"1000 tokens: 62 blocks hit, 8 tokens computed", 1000, 992},
		{"1008 tokens = 63 blocks: last block recomputed", 1008, 992},
		{"1009 tokens: 63 blocks hit", 1009, 1008},
		{"16 tokens: the last token forces a miss", 16, 0},
		{"17 tokens: one block", 17, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := mustNew(t, DefaultConfig())
			p := prompt(tc.promptLen, 1)
			at := 10 * time.Second // long after the first is done
			steps := drive(t, e, []arrival{
				{0, Request{ID: "a", Prompt: p, MaxTokens: 4, IgnoreEOS: true}},
				{at, Request{ID: "b", Prompt: p, MaxTokens: 4, IgnoreEOS: true}},
			}, 100)
			admA, _, _ := find(steps, "a", isAdmitted)
			admB, _, _ := find(steps, "b", isAdmitted)
			_, endA, _ := find(steps, "a", isFirst)
			_, endB, _ := find(steps, "b", isFirst)
			if admA.CachedTokens != 0 || admB.CachedTokens != tc.wantCached {
				t.Fatalf("cached = %d then %d, want 0 then %d", admA.CachedTokens, admB.CachedTokens, tc.wantCached)
			}
			ttftA, ttftB := endA, endB-at
			if tc.wantCached > 0 && ttftB >= ttftA {
				t.Fatalf("TTFT with hit %v ≥ without %v", ttftB, ttftA)
			}
			st := e.Stats()
			if st.PrefixQueries != int64(2*tc.promptLen) || st.PrefixHits != int64(tc.wantCached) {
				t.Fatalf("queries/hits = %d/%d, want %d/%d", st.PrefixQueries, st.PrefixHits, 2*tc.promptLen, tc.wantCached)
			}
		})
	}
}

func TestCacheSaltSeparatesPrefixes(t *testing.T) {
	e := mustNew(t, DefaultConfig())
	p := prompt(100, 3)
	steps := drive(t, e, []arrival{
		{0, Request{ID: "a", Prompt: p, MaxTokens: 1, CacheSalt: "lora-a"}},
		{time.Second, Request{ID: "b", Prompt: p, MaxTokens: 1, CacheSalt: "lora-b"}},
		{2 * time.Second, Request{ID: "c", Prompt: p, MaxTokens: 1, CacheSalt: "lora-a"}},
	}, 100)
	got := []int{}
	for _, id := range []string{"a", "b", "c"} {
		ev, _, _ := find(steps, id, isAdmitted)
		got = append(got, ev.CachedTokens)
	}
	if diff := cmp.Diff([]int{0, 0, 96}, got); diff != "" {
		t.Fatalf("cached tokens (-want +got):\n%s", diff)
	}
}

func TestAddRejects(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxModelLen, cfg.NumGPUBlocks = 100, 4
	e := mustNew(t, cfg)
	if err := e.Add(0, &Request{ID: "x", Prompt: []int{1}, MaxTokens: 1}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		req     Request
		tooLong bool
	}{
		{"empty prompt", Request{ID: "a", MaxTokens: 1}, false},
		{"no max tokens", Request{ID: "a", Prompt: []int{1}}, false},
		{"negative min tokens", Request{ID: "a", Prompt: []int{1}, MaxTokens: 1, MinTokens: -1}, false},
		{"duplicate id", Request{ID: "x", Prompt: []int{1}, MaxTokens: 1}, false},
		{"over max model len", Request{ID: "a", Prompt: prompt(90, 1), MaxTokens: 11}, true},
		{"over the KV cache (64 tokens)", Request{ID: "a", Prompt: prompt(60, 1), MaxTokens: 5}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.Add(0, &tc.req)
			if err == nil {
				t.Fatal("want error")
			}
			if errors.Is(err, ErrTooLong) != tc.tooLong {
				t.Fatalf("errors.Is(%v, ErrTooLong) = %v, want %v", err, !tc.tooLong, tc.tooLong)
			}
		})
	}
}

func TestChunkedPrefillSharesTheBudget(t *testing.T) {
	cfg := DefaultConfig() // 2048 tokens per step
	e := mustNew(t, cfg)
	steps := drive(t, e, []arrival{
		{0, Request{ID: "short", Prompt: prompt(10, 1), MaxTokens: 6, IgnoreEOS: true}},
		{time.Nanosecond, Request{ID: "long", Prompt: prompt(5000, 2), MaxTokens: 1, IgnoreEOS: true}},
	}, 100)
	var got []int
	for _, st := range steps[:5] {
		got = append(got, st.PrefillTokens)
	}
	// Step 1: short's prompt (10). Steps 2-4: short decodes 1 token, long
	// takes the rest of the 2048 budget: 2047, 2047, then 906.
	if diff := cmp.Diff([]int{10, 2047, 2047, 906, 0}, got); diff != "" {
		t.Fatalf("prefill tokens per step (-want +got):\n%s", diff)
	}
	if _, end, _ := find(steps, "long", isFirst); end != steps[3].End() {
		t.Fatalf("long's first token at %v, want the end of step 4 (%v)", end, steps[3].End())
	}
}

func TestMaxNumSeqsBoundsTheBatch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxNumSeqs = 4
	e := mustNew(t, cfg)
	var arr []arrival
	for i := range 10 {
		arr = append(arr, arrival{0, Request{ID: fmt.Sprint(i), Prompt: prompt(20, i), MaxTokens: 5, IgnoreEOS: true}})
	}
	steps := drive(t, e, arr, 1000)
	for i, st := range steps {
		if st.DecodeSeqs > 4 {
			t.Fatalf("step %d: %d sequences, want ≤ 4", i, st.DecodeSeqs)
		}
	}
	if got := e.Stats().Finished[FinishLength]; got != 10 {
		t.Fatalf("finished %d, want 10", got)
	}
}

func TestAbortFreesBlocks(t *testing.T) {
	e := mustNew(t, DefaultConfig())
	if err := e.Add(0, &Request{ID: "a", Prompt: prompt(100, 1), MaxTokens: 50}); err != nil {
		t.Fatal(err)
	}
	e.Step(0)
	if used := e.Stats().UsedBlocks; used != 7 {
		t.Fatalf("used blocks %d, want 7 (100 tokens)", used)
	}
	if !e.Abort("a") || e.Abort("a") {
		t.Fatal("Abort: want true then false")
	}
	s := e.Stats()
	if s.UsedBlocks != 0 || s.CachedBlocks != 6 || s.Finished[FinishAbort] != 1 || !e.Idle() {
		t.Fatalf("after abort: used %d cached %d aborted %d idle %v; want 0, 6 full blocks cached, 1, true",
			s.UsedBlocks, s.CachedBlocks, s.Finished[FinishAbort], e.Idle())
	}
}

func TestEOS(t *testing.T) {
	tests := []struct {
		name       string
		p          float64
		req        Request
		wantTokens int
		wantReason FinishReason
	}{
		{"certain EOS after min tokens", 1, Request{MaxTokens: 10, MinTokens: 3}, 4, FinishStop},
		{"certain EOS, no min: first token", 1, Request{MaxTokens: 10}, 1, FinishStop},
		{"ignore_eos runs to max", 1, Request{MaxTokens: 10, IgnoreEOS: true}, 10, FinishLength},
		{"no EOS runs to max", 0, Request{MaxTokens: 7}, 7, FinishLength},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.EOSProbability = tc.p
			e := mustNew(t, cfg)
			tc.req.ID, tc.req.Prompt = "r", prompt(8, 1)
			steps := drive(t, e, []arrival{{0, tc.req}}, 100)
			ev, _, _ := find(steps, "r", func(ev Event) bool { return ev.Finished })
			if ev.NumOutput != tc.wantTokens || ev.Reason != tc.wantReason {
				t.Fatalf("finished with %d tokens (%s), want %d (%s)", ev.NumOutput, ev.Reason, tc.wantTokens, tc.wantReason)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NumGPUBlocks, cfg.EOSProbability = 64, 0.05
	arr := pressureArrivals(30)
	a := drive(t, mustNew(t, cfg), arr, 100000)
	b := drive(t, mustNew(t, cfg), arr, 100000)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two runs differ (-first +second):\n%s", diff)
	}
}
