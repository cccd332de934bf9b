package reports

import (
	"math"
	"testing"
	"time"

	"github.com/tracebench/tracebench/replay"
)

// TestJainOverTime works the time-averaged index by hand: two users ask
// 100 tokens each at 0; both complete, so an end-of-run index would be 1
// either way, but the user kept waiting lowers it.
func TestJainOverTime(t *testing.T) {
	req := func(user string, first, done time.Duration) *replay.Result {
		return &replay.Result{User: user, FirstToken: first, Done: done, InputTokens: 100, PromptTokens: 100}
	}
	tests := []struct {
		name string
		rs   []*replay.Result
		want float64
	}{
		// 250 ms buckets 0..8. a is served over [500, 1000) ms, b over
		// [1500, 2000): x = (½,0) (1,0) (1,0) (1,0) (1,½) (1,1) (1,1) in
		// buckets 2..8 give 0.5 0.5 0.5 0.5 0.9 1 1, mean 4.9/7.
		{"one waits", []*replay.Result{req("a", 500*ms1, 1000*ms1), req("b", 1500*ms1, 2000*ms1)}, 0.7},
		{"served together", []*replay.Result{req("a", 500*ms1, 1000*ms1), req("b", 500*ms1, 1000*ms1)}, 1},
		{"one user", []*replay.Result{req("a", 500*ms1, 1000*ms1)}, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAccumulator(replay.Header{Policy: "p"}, DefaultOptions())
			for _, r := range tc.rs {
				a.Add(r)
			}
			got := a.Finish(&replay.Stop{Reason: "done", Elapsed: 2 * time.Second}).Fairness.Jain
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Jain = %v, want %v", got, tc.want)
			}
		})
	}
}
