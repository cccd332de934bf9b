package metrics

import (
	"math"
	"strings"
	"testing"
)

func TestDistortion(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lag        float64
		late50     float64
		late       float64 // p99
		tbt        float64
		wantSubstr string
	}{
		{"honest", 2, 0.1, 1.4, 6, ""},
		{"client late", 11, 0.1, 0.3, 6, "schedule lag p99 11.0 ms"},
		{"mock tail late", 2, 0.1, 1.6, 6, "mock step lateness p99 1.60 ms > 25 % of the median TBT 6.00 ms"},
		{"mock median late", 2, 0.4, 1.0, 6, "mock step lateness p50 0.40 ms > 5 % of the median TBT 6.00 ms"},
		{"no mock", 2, math.NaN(), math.NaN(), 6, ""},
		{"no tokens", 2, 2, 5, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Summary{}
			s.ScheduleLag.P99, s.MockStepLate.P50, s.MockStepLate.P99, s.TBT.P50 = tc.lag, tc.late50, tc.late, tc.tbt
			got := Distortion(s)
			if (tc.wantSubstr == "") != (got == "") || !strings.Contains(got, tc.wantSubstr) {
				t.Errorf("Distortion = %q, want %q", got, tc.wantSubstr)
			}
		})
	}
}
