package metrics

import (
	"fmt"
	"math"
)

// Distortion says why s's timings are not the servers' alone, or "" when
// they are: the client's schedule lag p99 above 10 ms, or the mock's step
// lateness above its share of the median TBT (mockLateExcess), the
// thresholds at which a report warns. bench uses it to check runs it ran
// side by side.
func Distortion(s *Summary) string {
	if s == nil {
		return ""
	}
	if s.ScheduleLag.P99 > warnLagMS {
		return fmt.Sprintf("schedule lag p99 %.1f ms > %.0f ms", s.ScheduleLag.P99, warnLagMS)
	}
	return mockLateExcess(s.MockStepLate, s.TBT.P50)
}

// mockLateExcess says how the mock's step lateness l passed its share of
// the median TBT tbt (ms): p50 above warnMockLateP50Frac or p99 above
// warnMockLateP99Frac of it; "" when it did not or cannot be judged.
func mockLateExcess(l Lateness, tbt float64) string {
	if tbt <= 0 {
		return ""
	}
	if !math.IsNaN(l.P50) && l.P50 > warnMockLateP50Frac*tbt {
		return fmt.Sprintf("mock step lateness p50 %.2f ms > %.0f %% of the median TBT %.2f ms", l.P50, 100*warnMockLateP50Frac, tbt)
	}
	if !math.IsNaN(l.P99) && l.P99 > warnMockLateP99Frac*tbt {
		return fmt.Sprintf("mock step lateness p99 %.2f ms > %.0f %% of the median TBT %.2f ms", l.P99, 100*warnMockLateP99Frac, tbt)
	}
	return ""
}
