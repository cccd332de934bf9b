package bench

import (
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestErrorLimit: the limit asks to stop only once ErrorLimitMinResults
// Results are in and the failed share is strictly over max.
func TestErrorLimit(t *testing.T) {
	tests := []struct {
		name string
		max  float64
		// fail says whether Result i (0-based) failed.
		fail func(i int) bool
		// stopAt is the 1-based Result that trips the limit (0: none in 100).
		stopAt int
	}{
		{"all fail waits for the minimum", 0.05, func(int) bool { return true }, ErrorLimitMinResults},
		{"none fail", 0.05, func(int) bool { return false }, 0},
		{"one in twenty is not over 5 %", 0.05, func(i int) bool { return i == 3 }, 0},
		{"two in twenty are", 0.05, func(i int) bool { return i == 3 || i == 7 }, ErrorLimitMinResults},
		{"late burst", 0.05, func(i int) bool { return i >= 40 }, 43},
		{"zero limit, first failure after the minimum", 0, func(i int) bool { return i == 24 }, 25},
		{"limit 1 never stops", 1, func(int) bool { return true }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := &errorLimit{max: tc.max}
			got := 0
			for i := 0; i < 100 && got == 0; i++ {
				r := &results.Result{}
				if tc.fail(i) {
					r.ErrClass = results.ErrHTTP5xx
				}
				if lim.check(r) == results.StopErrorLimit {
					got = i + 1
				}
			}
			if got != tc.stopAt {
				t.Fatalf("stopped at result %d, want %d", got, tc.stopAt)
			}
			if got > 0 && (lim.at != got || !(lim.tripped > tc.max)) {
				t.Errorf("tripped %v at %d", lim.tripped, lim.at)
			}
		})
	}
}

// TestSweepPasses: a run passes only with attainment at or above the
// target, its error rate at or under the limit, and not cut short; an
// error rate over the limit fails it even when attainment is met.
func TestSweepPasses(t *testing.T) {
	sum := func(att, errRate float64) *metrics.Summary {
		return &metrics.Summary{SLA: metrics.SLA{Attainment: att}, ErrorRate: errRate}
	}
	tests := []struct {
		name string
		sum  *metrics.Summary
		cut  bool
		want bool
	}{
		{"met, no errors", sum(0.95, 0), false, true},
		{"met, errors at the limit", sum(0.95, 0.01), false, true},
		{"met, errors over the limit", sum(0.97, 0.02), false, false},
		{"met, cut short", sum(1, 0.5), true, false},
		{"met, cut short by warm-up errors, window under the limit", sum(0.95, 0.005), true, false},
		{"attainment under target", sum(0.85, 0), false, false},
		{"attainment at target", sum(0.9, 0), false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := passes(tc.sum, tc.cut, 0.9, 0.01); got != tc.want {
				t.Errorf("passes(attainment %v, error rate %v, cut %v) = %v, want %v", tc.sum.SLA.Attainment,
					tc.sum.ErrorRate, tc.cut, got, tc.want)
			}
		})
	}
}
