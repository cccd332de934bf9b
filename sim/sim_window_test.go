package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestSimStaticBatchWindow sends three Requests 2 ms apart to one idle
// engine: with static batching and the gather window they start (and so
// emit their first tokens) together at 5 ms, as on the mock server;
// without the window, or with continuous batching, the first starts at
// once.
func TestSimStaticBatchWindow(t *testing.T) {
	static, err := profile.BuiltinConfig("linear-static")
	if err != nil {
		t.Fatal(err)
	}
	continuous := static
	continuous.Batching = engine.Continuous
	for _, tc := range []struct {
		name   string
		cfg    engine.Config
		window time.Duration
		// firstStart is when the first Request's first step starts; same
		// whether all three share that step.
		firstStart time.Duration
		same       bool
	}{
		{"static default window", static, 0, DefaultStaticBatchWindow, true},
		{"static 10ms window", static, 10 * time.Millisecond, 10 * time.Millisecond, true},
		{"static no window", static, -1, 0, false},
		{"continuous", continuous, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firsts := windowRun(t, tc.cfg, tc.window)
			// The linear model: every step takes β, prefill is free.
			if want := tc.firstStart + tc.cfg.Latency.Beta; firsts[0] != want {
				t.Fatalf("first token at %v: want %v (one step of β after %v)", firsts[0], want, tc.firstStart)
			}
			if got := firsts[1] == firsts[0] && firsts[2] == firsts[0]; got != tc.same {
				t.Fatalf("first tokens at %v: want shared %v", firsts, tc.same)
			}
		})
	}
}

// windowRun simulates three 16-token Requests 2 ms apart on one engine
// and returns their first-token times.
func windowRun(t *testing.T, cfg engine.Config, window time.Duration) []time.Duration {
	t.Helper()
	var reqs []traces.Request
	for i := range 3 {
		reqs = append(reqs, traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * 2 * time.Millisecond,
			TokenIDs: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 + i}, InputTokens: 16, OutputTokens: 4})
	}
	r, _ := policies.NewRouter("round-robin", nil, nil)
	q, _ := policies.NewQueue("fcfs", nil, nil)
	firsts := make([]time.Duration, 3)
	_, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(reqs),
		Router: r, Queue: q, OnResult: func(res *results.Result) {
			var i int
			fmt.Sscan(res.ID, &i)
			firsts[i] = res.FirstToken
		}},
		Engines: []engine.Config{cfg}, BatchWindow: window})
	if err != nil {
		t.Fatal(err)
	}
	return firsts
}

// TestSimBatchWindowIsTheMocks keeps the simulated default equal to the
// mock server's, which it models.
func TestSimBatchWindowIsTheMocks(t *testing.T) {
	if diff := cmp.Diff(mockserver.DefaultBatchWindow, DefaultStaticBatchWindow); diff != "" {
		t.Fatalf("simulated static batch window differs from the mock server's (-mock +sim):\n%s", diff)
	}
}
