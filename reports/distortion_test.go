package reports

import (
	"math"
	"strings"
	"testing"
)

func TestDistortion(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lag, late  float64
		tbt        float64
		wantSubstr string
	}{
		{"honest", 2, 0.3, 6, ""},
		{"client late", 11, 0.3, 6, "schedule lag p99 11.0 ms"},
		{"mock late", 2, 0.7, 6, "mock step lateness p99 0.70 ms"},
		{"no mock", 2, math.NaN(), 6, ""},
		{"no tokens", 2, 5, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Summary{}
			s.ScheduleLag.P99, s.MockStepLate.P99, s.TBT.P50 = tc.lag, tc.late, tc.tbt
			got := Distortion(s)
			if (tc.wantSubstr == "") != (got == "") || !strings.Contains(got, tc.wantSubstr) {
				t.Errorf("Distortion = %q, want %q", got, tc.wantSubstr)
			}
		})
	}
}
