package sim

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestSimulateCut: a first-byte timeout gives up the requests that wait
// too long for a first token, and a stop time cuts those in flight, as
// the measured run that predict compares with ended.
func TestSimulateCut(t *testing.T) {
	slow := engine.DefaultConfig()
	slow.MaxNumSeqs = 1 // one at a time: the later requests of a burst wait
	slow.Latency = engine.LatencyModel{Beta: 10 * time.Millisecond}
	tests := []struct {
		name                  string
		cut                   Cut
		ok, timedOut, stopped int
		reason                results.StopReason
	}{
		{"no cut", Cut{}, 8, 0, 0, results.StopDone},
		// Each request takes 8 steps of 10 ms: the first two get their
		// first token within 100 ms, the rest time out.
		{"first-byte timeout", Cut{FirstByteTimeout: 100 * time.Millisecond}, 2, 6, 0, results.StopDone},
		// At 200 ms two have finished; the other six were sent and are cut.
		{"stop", Cut{StopAt: 200 * time.Millisecond}, 2, 0, 6, results.StopAsMeasured},
		// A run that ends before the stop time is done, not stopped.
		{"stop after the end", Cut{StopAt: 10 * time.Second, FirstByteTimeout: time.Second}, 8, 0, 0, results.StopDone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 2)))
			q, _ := policies.NewQueue("fcfs", nil, nil)
			var ok, timedOut, stopped int
			hook := func(res *results.Result) {
				switch res.ErrClass {
				case "":
					ok++
				case results.ErrTimeout:
					timedOut++
				case results.ErrCanceled:
					stopped++
				}
			}
			stop, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(burst(8)),
				Router: r, Queue: q, OnResult: hook}, Engines: []engine.Config{slow}, Cut: tc.cut})
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || timedOut != tc.timedOut || stopped != tc.stopped || stop.Reason != tc.reason {
				t.Fatalf("ok %d timed out %d stopped %d, reason %q; want %d %d %d %q",
					ok, timedOut, stopped, stop.Reason, tc.ok, tc.timedOut, tc.stopped, tc.reason)
			}
		})
	}
}
