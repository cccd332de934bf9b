package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// burst is n equal Requests arriving together: on one engine they are
// batched and all finish in the same step.
func burst(n int) []traces.Request {
	out := make([]traces.Request, n)
	for i := range out {
		out[i] = traces.Request{ID: fmt.Sprint(i), BlockIDs: []uint64{uint64(i), uint64(1000 + i)}, BlockSize: 16,
			InputTokens: 32, OutputTokens: 8}
	}
	return out
}

// TestSimulateStopsAtHookResult: an OnResult hook that cancels the
// context after its Nth Result (as the sweep's error limit does) ends the
// simulated run at that Result, whether Results come one per step, many
// in one step, or as rejections, and the run says it was interrupted.
func TestSimulateStopsAtHookResult(t *testing.T) {
	tooShort := engine.DefaultConfig()
	tooShort.MaxModelLen = 16
	tests := []struct {
		name    string
		reqs    []traces.Request
		engines int
		cfg     engine.Config
		stopAt  int
	}{
		{"staggered arrivals", simWorkload(), 2, engine.DefaultConfig(), 25},
		{"one step finishes the whole batch", burst(64), 1, engine.DefaultConfig(), 5},
		{"every request rejected as too long", burst(64), 1, tooShort, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if full := runSimUntil(t, tc.reqs, tc.engines, tc.cfg, 0); full.results != len(tc.reqs) || full.reason != results.StopDone {
				t.Fatalf("unstopped run: %d results, stop %q; want all %d, done", full.results, full.reason, len(tc.reqs))
			}
			got := runSimUntil(t, tc.reqs, tc.engines, tc.cfg, tc.stopAt)
			if got.reason != results.StopInterrupted || got.results != tc.stopAt {
				t.Fatalf("hook stopped after result %d: run went on to %d results, stop %q; want it to end there, interrupted",
					tc.stopAt, got.results, got.reason)
			}
		})
	}
}

type simOutcome struct {
	results int
	reason  results.StopReason
}

// runSimUntil simulates reqs on n engines with cfg; a hook cancels the
// run's context at Result stopAt (0: never).
func runSimUntil(t *testing.T, reqs []traces.Request, n int, cfg engine.Config, stopAt int) simOutcome {
	t.Helper()
	r, err := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := policies.NewQueue("fcfs", nil, nil)
	cfgs := make([]engine.Config, n)
	for i := range cfgs {
		cfgs[i] = cfg
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out simOutcome
	hook := func(*results.Result) {
		if out.results++; out.results == stopAt {
			cancel()
		}
	}
	stop, err := Run(ctx, Options{Common: replay.Common{Source: traces.NewSliceSource(reqs),
		Router: r, Queue: q, OnResult: hook},
		Engines: cfgs})
	if err != nil {
		t.Fatal(err)
	}
	out.reason = stop.Reason
	return out
}
