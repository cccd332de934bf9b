package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStaticBatchRunsToItsLongestMember(t *testing.T) {
	cfg := linearConfig(Static)
	e := mustNew(t, cfg)
	var arr []arrival
	for i, n := range []int{2, 5, 10, 3} {
		arr = append(arr, arrival{0, Request{ID: fmt.Sprint("b1-", i), Prompt: prompt(8, i), MaxTokens: n, IgnoreEOS: true}})
	}
	arr = append(arr, arrival{time.Millisecond, Request{ID: "late", Prompt: prompt(8, 9), MaxTokens: 2, IgnoreEOS: true}})
	steps := drive(t, e, arr, 100)
	beta := cfg.Latency.Beta
	// The batch of four takes 10 steps of β (linear model); "late" arrives
	// during the first and joins only after the longest member finishes.
	_, lateFirst, _ := find(steps, "late", isFirst)
	if want := 11 * beta; lateFirst != want {
		t.Fatalf("late's first token at %v, want %v (after 10 steps of the first batch)", lateFirst, want)
	}
	var sizes []int
	for _, st := range steps {
		sizes = append(sizes, st.DecodeSeqs)
	}
	if diff := cmp.Diff([]int{4, 4, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}, sizes); diff != "" {
		t.Fatalf("batch sizes per step (-want +got):\n%s", diff)
	}
}

func TestContinuousBatchingJoinsAtOnce(t *testing.T) {
	cfg := linearConfig(Continuous)
	e := mustNew(t, cfg)
	steps := drive(t, e, []arrival{
		{0, Request{ID: "long", Prompt: prompt(8, 1), MaxTokens: 10, IgnoreEOS: true}},
		{time.Millisecond, Request{ID: "late", Prompt: prompt(8, 2), MaxTokens: 2, IgnoreEOS: true}},
	}, 100)
	if _, first, _ := find(steps, "late", isFirst); first != 2*cfg.Latency.Beta {
		t.Fatalf("late's first token at %v, want %v (joins at the next step)", first, 2*cfg.Latency.Beta)
	}
}

// linearConfig is the "linear" built-in profile's engine (the
// "linear-static" one with Static): the default engine with the linear
// latency model and the batching given.
func linearConfig(batching string) Config {
	cfg := DefaultConfig()
	cfg.Latency, cfg.Batching = LinearLatency(), batching
	return cfg
}
