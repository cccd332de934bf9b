package engine

import (
	"strconv"
	"testing"
	"time"
)

// llamaConfig is a 4-slot llama.cpp engine without jitter: β 5 ms,
// 1 ms per decoding sequence, 100 µs per prompt token.
func llamaConfig(l LlamaCppConfig) Config {
	c := DefaultConfig()
	c.Cache, c.MaxNumSeqs, c.MaxModelLen, c.NumGPUBlocks = CachePerSlot, 4, 4096, 1024
	c.HostCacheTokens, c.LlamaCpp = 1<<16, l
	c.Latency = LatencyModel{Beta: 5 * time.Millisecond, DecodePerToken: time.Millisecond, PrefillPerToken: 100 * time.Microsecond}
	return c
}

// tokensFrom returns n token ids starting at base.
func tokensFrom(base, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = base + i
	}
	return p
}

// firstStep adds the requests at 0 and returns the first step's duration.
func firstStep(t *testing.T, e *Engine, reqs ...*Request) time.Duration {
	t.Helper()
	for _, r := range reqs {
		if err := e.Add(0, r); err != nil {
			t.Fatal(err)
		}
	}
	return e.Step(0).Duration
}

// runAll steps e until idle from now and returns the end time.
func runAll(e *Engine, now time.Duration) time.Duration {
	for !e.Idle() {
		now = e.Step(now).End()
	}
	return now
}

// filledEngine returns a llamaConfig engine of l whose 4 slots hold
// unrelated 100-token prompts (+1 output token), idle.
func filledEngine(t *testing.T, l LlamaCppConfig) *Engine {
	t.Helper()
	e, err := New(llamaConfig(l))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		firstStep(t, e, &Request{ID: "fill" + strconv.Itoa(i), Prompt: tokensFrom(1000*(i+1), 100), MaxTokens: 1})
		runAll(e, 0)
	}
	return e
}

func TestSlotSaveStallsTheStep(t *testing.T) {
	l := LlamaCppConfig{SaveFixed: 300 * time.Millisecond, SavePerToken: 100 * time.Microsecond}
	e := filledEngine(t, l)
	// A new unrelated prompt evicts the least recently used slot: a save
	// of the 100 tokens whose KV it holds, alone on the loop, then a
	// batch of the prompt, β and one sequence's decode cost.
	d := firstStep(t, e, &Request{ID: "new", Prompt: tokensFrom(9000, 10), MaxTokens: 1})
	if want := 300*time.Millisecond + 100*100*time.Microsecond; d != want {
		t.Fatalf("step with a slot save took %v, want %v (the save alone)", d, want)
	}
	if d, want := e.Step(d).Duration, 10*100*time.Microsecond+5*time.Millisecond+time.Millisecond; d != want {
		t.Fatalf("batch after the save took %v, want %v (prompt + β)", d, want)
	}
	if st := e.Stats(); st.SlotSaves != 1 || st.SlotSavedTokens != 100 {
		t.Fatalf("SlotSaves = %d of %d tokens, want 1 of 100", st.SlotSaves, st.SlotSavedTokens)
	}
	// Off: no save cost at all.
	e2 := filledEngine(t, LlamaCppConfig{})
	if d := firstStep(t, e2, &Request{ID: "new", Prompt: tokensFrom(9000, 10), MaxTokens: 1}); d != 7*time.Millisecond {
		t.Fatalf("step without save costs took %v, want 7ms", d)
	}
}

func TestSplitKVPricesRunsOfSlots(t *testing.T) {
	tests := []struct {
		name     string
		decoding []bool
		chunks   []int
		want     time.Duration
	}{
		{"one run of 4", []bool{true, true, true, true}, nil, 5*time.Millisecond + 4*time.Millisecond},
		{"two runs of 1", []bool{true, false, true, false}, nil, 2 * (5*time.Millisecond + time.Millisecond)},
		{"run of 2 and a prompt of 600 tokens", []bool{true, true, false, false}, []int{600},
			5*time.Millisecond + 2*time.Millisecond + 2*5*time.Millisecond + 600*100*time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := New(llamaConfig(LlamaCppConfig{SplitKV: true}))
			prefill := 0
			for _, n := range tc.chunks {
				prefill += n
			}
			if got := e.ubatchMean(tc.decoding, tc.chunks, prefill, 0); got != tc.want {
				t.Fatalf("ubatchMean = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClientGoneOutsideWorkersIsStillAdmitted(t *testing.T) {
	e, _ := New(llamaConfig(LlamaCppConfig{HTTPWorkers: 5}))
	for i := range 7 {
		if err := e.Add(0, &Request{ID: strconv.Itoa(i), Prompt: tokensFrom(1000*(i+1), 20), MaxTokens: 50}); err != nil {
			t.Fatal(err)
		}
	}
	e.Step(0) // 4 slots run; 3 wait, of which 1 has a worker
	if st := e.Stats(); st.Running != 4 || st.Waiting != 1 {
		t.Fatalf("running %d waiting %d reported, want 4 and 1 (2 wait outside the HTTP workers)", st.Running, st.Waiting)
	}
	if e.Outside("4") || !e.Outside("5") || !e.Outside("6") {
		t.Fatalf("Outside: 4 %v 5 %v 6 %v, want false true true", e.Outside("4"), e.Outside("5"), e.Outside("6"))
	}
	if !e.ClientGone("4") {
		t.Fatal("ClientGone(4), inside the workers: want aborted at once")
	}
	if e.ClientGone("6") {
		t.Fatal("ClientGone(6), outside the workers: want kept until its first token")
	}
	runAll(e, time.Second)
	st := e.Stats()
	if st.Finished[FinishAbort] != 2 || st.Finished[FinishLength] != 5 {
		t.Fatalf("finished %v, want 2 aborted (4 at once, 6 at its first token) and 5 complete", st.Finished)
	}
}

// TestSavesChainBeforeTheBatch: a request that arrives while another's
// slot save runs is placed, with its own save, before the batch, as
// llama-server drains its task queue before update_slots: the first
// request's first token waits for both saves.
func TestSavesChainBeforeTheBatch(t *testing.T) {
	l := LlamaCppConfig{SaveFixed: 300 * time.Millisecond}
	e := filledEngine(t, l)
	if err := e.Add(0, &Request{ID: "a", Prompt: tokensFrom(9000, 10), MaxTokens: 2}); err != nil {
		t.Fatal(err)
	}
	end := e.Step(0).End()
	if err := e.Add(100*time.Millisecond, &Request{ID: "b", Prompt: tokensFrom(9500, 10), MaxTokens: 2}); err != nil {
		t.Fatal(err)
	}
	var first time.Duration
	for now := end; !e.Idle(); {
		st := e.Step(now)
		now = st.End()
		for _, ev := range st.Events {
			if ev.ID == "a" && ev.First {
				first = now
			}
		}
	}
	if first < 600*time.Millisecond {
		t.Fatalf("a's first token at %v: want after both saves (600 ms)", first)
	}
}
