package policies

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// fixedServe is a fixed-rate backend: every Request takes d, whatever
// else runs.
func fixedServe(d time.Duration) simServe {
	return func(now time.Duration, _ int, _ int, reqs []*traces.Request) []simDone {
		out := make([]simDone, len(reqs))
		for i := range reqs {
			out[i] = simDone{at: now + d, tbt: d / 256}
		}
		return out
	}
}

// twoUsers is user a at 1.5 req/s and user b at 3 req/s for dur, every
// Request 256 input and 256 output tokens, evenly spaced (b offset by
// 1 ms so arrivals never tie).
func twoUsers(dur time.Duration) []*traces.Request {
	var out []*traces.Request
	add := func(user string, every, offset time.Duration) {
		for at := offset; at < dur; at += every {
			out = append(out, qUserReq(fmt.Sprintf("%s%d", user, len(out)), user, at, 256, 256))
		}
	}
	add("a", 2*time.Second/3, 0)
	add("b", time.Second/3, time.Millisecond)
	slices.SortStableFunc(out, func(x, y *traces.Request) int { return cmp.Compare(x.Arrival, y.Arrival) })
	return out
}

// TestVTCTwoOverloadedUsers: a backend serving 2 req/s (4 slots × 2 s)
// against 4.5 req/s offered. Both users stay backlogged, so FCFS serves
// them in proportion to their rates (1 : 2) while VTC and LCF equalise
// their token service (1 : 1), the VTC paper's two-client experiment.
func TestVTCTwoOverloadedUsers(t *testing.T) {
	tests := []struct {
		queue  string
		lo, hi float64 // accepted a : b service ratio
	}{
		{"fcfs", 0.45, 0.55},
		{"vtc", 0.95, 1.05},
		{"lcf", 0.95, 1.05},
	}
	for _, tc := range tests {
		t.Run(tc.queue, func(t *testing.T) {
			q, err := NewQueue(tc.queue, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sim := newQueueSim(t, q, 1, Capacity{Requests: 4}, fixedServe(2*time.Second))
			sim.run(twoUsers(600*time.Second), 600*time.Second)
			served := map[string]int{}
			for _, f := range sim.finished {
				if f.end >= 60*time.Second { // after the start-up minute
					served[f.req.User]++
				}
			}
			ratio := float64(served["a"]) / float64(served["b"])
			t.Logf("%s: served a %d, b %d requests in 60..600 s: a/b = %.2f", tc.queue, served["a"], served["b"], ratio)
			if ratio < tc.lo || ratio > tc.hi {
				t.Errorf("a/b = %.2f, want within [%.2f, %.2f]", ratio, tc.lo, tc.hi)
			}
		})
	}
}

// TestVTCLiftVersusLCF: user a is backlogged from 0 s; user b is idle until
// 100 s and then floods at 3 req/s until 200 s, on a 2 req/s backend. LCF
// keeps b's counter at 0, so b's banked credit (100 s of a's service) starves
// a until b catches up; VTC lifts b to a's counter and they share 1 : 1.
func TestVTCLiftVersusLCF(t *testing.T) {
	var reqs []*traces.Request
	for at := time.Duration(0); at < 300*time.Second; at += time.Second / 3 {
		reqs = append(reqs, qUserReq(fmt.Sprintf("a%d", len(reqs)), "a", at, 256, 256))
		if at >= 100*time.Second && at < 200*time.Second {
			reqs = append(reqs, qUserReq(fmt.Sprintf("b%d", len(reqs)), "b", at+time.Millisecond, 256, 256))
		}
	}
	tests := []struct {
		queue  string
		lo, hi int // a's completions in 110..190 s (80 s at 2 req/s = 160)
	}{
		{"vtc", 70, 90}, // half of 160
		{"lcf", 0, 5},   // starved
	}
	for _, tc := range tests {
		t.Run(tc.queue, func(t *testing.T) {
			q, err := NewQueue(tc.queue, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sim := newQueueSim(t, q, 1, Capacity{Requests: 4}, fixedServe(2*time.Second))
			sim.run(reqs, 300*time.Second)
			a := 0
			for _, f := range sim.finished {
				if f.req.User == "a" && f.end >= 110*time.Second && f.end < 190*time.Second {
					a++
				}
			}
			t.Logf("%s: user a completed %d requests in 110..190 s", tc.queue, a)
			if a < tc.lo || a > tc.hi {
				t.Errorf("user a completed %d, want %d..%d", a, tc.lo, tc.hi)
			}
		})
	}
}
