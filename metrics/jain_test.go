package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

// TestJainOverTime works the time-averaged index by hand: every user
// completes, so an end-of-run index would be 1 in every case, but a user
// kept waiting, or served less than its max-min fair share, lowers it.
func TestJainOverTime(t *testing.T) {
	req := func(user string, first, done time.Duration) *results.Result {
		return &results.Result{User: user, FirstToken: first, Done: done, InputTokens: 100, PromptTokens: 100}
	}
	tests := []struct {
		name string
		rs   []*results.Result
		want float64
	}{
		// 250 ms buckets 0..8. a is served over [500, 1000) ms, b over
		// [1500, 2000): x = (½,0) (1,0) (1,0) (1,0) (1,½) (1,1) (1,1) in
		// buckets 2..8 give 0.5 0.5 0.5 0.5 0.9 1 1, mean 4.9/7.
		{"one waits", []*results.Result{req("a", 500*ms1, 1000*ms1), req("b", 1500*ms1, 2000*ms1)}, 0.7},
		{"served together", []*results.Result{req("a", 500*ms1, 1000*ms1), req("b", 500*ms1, 1000*ms1)}, 1},
		// a asks 200 (two requests), b 100, all at 0, all served over
		// [500, 1000): in proportion to demand, which an end-of-run or a
		// service/demand index calls fair. In bucket 2, 150 given: the
		// max-min shares are 75 and 75, a has 100, b 50: x (4/3, 2/3),
		// Jain 0.9; buckets 3 and 4: 1. Mean 2.9/3.
		{"served in proportion to demand", []*results.Result{req("a", 500*ms1, 1000*ms1), req("a", 500*ms1, 1000*ms1),
			req("b", 500*ms1, 1000*ms1)}, 2.9 / 3},
		{"one user", []*results.Result{req("a", 500*ms1, 1000*ms1)}, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAccumulator(results.Header{Policy: "p"}, DefaultOptions())
			for _, r := range tc.rs {
				a.Add(r)
			}
			got := a.Finish(&results.Stop{Reason: "done", Elapsed: 2 * time.Second}).Fairness.Jain
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Jain = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMaxMinShares(t *testing.T) {
	tests := []struct {
		total      float64
		want, fair []float64
	}{
		{150, []float64{100, 200}, []float64{75, 75}},   // both above the equal split
		{150, []float64{200, 40}, []float64{110, 40}},   // the light user gets all it asked
		{500, []float64{100, 200}, []float64{100, 200}}, // more than asked: each its demand
		{90, []float64{10, 20, 100}, []float64{10, 20, 60}},
	}
	for _, tc := range tests {
		got := MaxMinShares(tc.total, tc.want)
		for i := range got {
			if math.Abs(got[i]-tc.fair[i]) > 1e-9 {
				t.Errorf("MaxMinShares(%v, %v) = %v, want %v", tc.total, tc.want, got, tc.fair)
				break
			}
		}
	}
}
