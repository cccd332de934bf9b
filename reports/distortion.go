package reports

import (
	"fmt"
	"math"
)

// Distortion says why s's timings are not the servers' alone, or "" when
// they are: the client's schedule lag p99 above 10 ms, or the mock's p99
// step lateness above 10 % of the median TBT, the thresholds at which a
// report warns. bench uses it to check runs it ran side by side.
func Distortion(s *Summary) string {
	if s == nil {
		return ""
	}
	if s.ScheduleLag.P99 > warnLagMS {
		return fmt.Sprintf("schedule lag p99 %.1f ms > %.0f ms", s.ScheduleLag.P99, warnLagMS)
	}
	if l := s.MockStepLate; !math.IsNaN(l.P99) && s.TBT.P50 > 0 && l.P99 > warnMockLateFrac*s.TBT.P50 {
		return fmt.Sprintf("mock step lateness p99 %.2f ms > %.0f %% of the median TBT %.2f ms",
			l.P99, 100*warnMockLateFrac, s.TBT.P50)
	}
	return ""
}
