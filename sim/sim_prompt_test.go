package sim_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces"
)

// TestPromptKeysSameHits feeds block-id Requests to two engines, one as
// rendered tokens and one as block keys plus the tokens after them (what
// the simulator gives an engine), and requires every step to be the same:
// admissions, cached tokens, generated tokens, finishes, step durations
// and the engines' counters. The Requests share prefixes at several block
// sizes (some not a multiple of the engine's), are cut mid-block or padded
// past their ids, and overflow a small cache, so hits, misses, evictions
// and preemptions all occur.
func TestPromptKeysSameHits(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.NumGPUBlocks, cfg.MaxNumBatchedTokens = 160, 512
	tokens, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	keyed, _ := engine.New(cfg)
	rng := rand.New(rand.NewPCG(7, 7))
	sizes := []int{64, 32, 48, 512}
	var (
		keys []uint64
		tail []int
		now  time.Duration
	)
	steps := 0
	for i := range 300 {
		r := &traces.Request{ID: fmt.Sprint(i), BlockSize: sizes[rng.IntN(len(sizes))]}
		for range 1 + rng.IntN(5) {
			r.BlockIDs = append(r.BlockIDs, uint64(rng.IntN(6))) // few ids: many shared prefixes
		}
		if rng.IntN(2) == 0 {
			r.InputTokens = 1 + rng.IntN(len(r.BlockIDs)*r.BlockSize+40)
		}
		r.InputTokens = min(max(r.InputTokens, 0), 1024)
		if r.InputTokens == 0 && len(r.BlockIDs)*r.BlockSize > 1024 {
			r.InputTokens = 1024
		}
		out := 1 + rng.IntN(20)
		a := &engine.Request{ID: r.ID, Prompt: traces.PromptTokens(r), MaxTokens: out}
		keys, tail = traces.AppendPromptKeys(keys[:0], tail[:0], r, cfg.BlockSize)
		b := &engine.Request{ID: r.ID, PromptKeys: keys, KeyRun: traces.PromptKeyRun(r, cfg.BlockSize), Prompt: tail, MaxTokens: out}
		errA, errB := tokens.Add(now, a), keyed.Add(now, b)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("request %s: Add errors %v and %v", r.ID, errA, errB)
		}
		for range rng.IntN(4) {
			sa, sb := tokens.Step(now), keyed.Step(now)
			if !reflect.DeepEqual(sa, sb) {
				t.Fatalf("step %d differs:\ntokens %+v\nkeys   %+v", steps, sa, sb)
			}
			now += sa.Duration + time.Millisecond
			steps++
		}
	}
	for !tokens.Idle() {
		sa, sb := tokens.Step(now), keyed.Step(now)
		if !reflect.DeepEqual(sa, sb) {
			t.Fatalf("draining step %d differs:\ntokens %+v\nkeys   %+v", steps, sa, sb)
		}
		now += sa.Duration
		steps++
	}
	sa, sb := tokens.Stats(), keyed.Stats()
	if !reflect.DeepEqual(sa, sb) {
		t.Fatalf("stats differ:\ntokens %+v\nkeys   %+v", sa, sb)
	}
	if sa.PrefixHits == 0 || sa.Evictions == 0 || sa.Preemptions == 0 || sa.PrefixHits == sa.PrefixQueries {
		t.Fatalf("the requests exercised too little: %+v", sa)
	}
}

// TestPromptKeysRefused checks that an engine keeping every prompt token
// (a block event hook) refuses keyed prompts.
func TestPromptKeysRefused(t *testing.T) {
	e, err := engine.New(engine.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	e.OnBlockEvent(func(engine.BlockEvent) {})
	err = e.Add(0, &engine.Request{ID: "1", PromptKeys: []uint64{1}, MaxTokens: 1})
	if err == nil || !strings.Contains(err.Error(), "keeps every prompt token") {
		t.Fatalf("Add with keys and a hook: %v, want a refusal", err)
	}
}
