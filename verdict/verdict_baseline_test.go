package verdict

import (
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

func TestCompareBaseline(t *testing.T) {
	tests := []struct {
		name     string
		vals     map[string][]float64
		baseline string
		want     string // in the headline ("" : no baseline clause)
	}{
		{"clearly ahead", map[string][]float64{"a": {50, 60, 40}, "b": {49, 58, 41}, "rr": {30, 41, 19}},
			"rr", "a is ahead of rr by +20 req/s"},
		{"not clearly ahead", map[string][]float64{"a": {50, 60, 40}, "b": {49, 58, 41}, "rr": {60, 20, 41}},
			"rr", "a is not clearly ahead of rr"},
		{"baseline is the runner-up", map[string][]float64{"a": {50, 60, 40}, "rr": {49, 58, 41}}, "rr", ""},
		{"baseline is the pick", map[string][]float64{"rr": {50, 60, 40}, "b": {49, 58, 41}}, "rr", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var names []string
			for _, p := range []string{"a", "b", "rr"} {
				if _, ok := tc.vals[p]; ok {
					names = append(names, p)
				}
			}
			v := DecideCapacityVerdict(names, tc.vals, metrics.SLO{})
			v.CompareBaseline(tc.baseline, tc.vals)
			h := v.Headline()
			if tc.want == "" {
				if strings.Contains(h, "ahead of") || strings.Contains(h, "behind") {
					t.Fatalf("headline %q: want no baseline clause", h)
				}
				return
			}
			if !strings.Contains(h, tc.want) {
				t.Fatalf("headline %q: want it to hold %q", h, tc.want)
			}
		})
	}
}

func TestVerdictRowsStayInRange(t *testing.T) {
	rates := map[string][]float64{"a": {5, 90, 10}, "b": {1, 2, 3}}
	for _, r := range DecideCapacityVerdict([]string{"a", "b"}, rates, metrics.SLO{}).Rows {
		if r.Lo < 0 {
			t.Errorf("%s: rate interval from %g: a rate is never negative", r.Policy, r.Lo)
		}
	}
	att := map[string][]float64{"a": {100, 60, 100}, "b": {0, 40, 0}}
	v := decide([]string{"a", "b"}, att, nil, "SLA attainment", "%", "pt")
	for _, r := range v.Rows {
		if r.Lo < 0 || r.Hi > 100 {
			t.Errorf("%s: attainment interval %g to %g: want inside 0–100 %%", r.Policy, r.Lo, r.Hi)
		}
	}
}
