package reports

import (
	"fmt"
	"math"
)

// Thresholds of the warnings a report prints.
const (
	// warnErrorRate: more than 1 % failed requests.
	warnErrorRate = 0.01
	// warnLagMS: a schedule lag p99 above 10 ms means the client, not
	// the servers, delayed requests.
	warnLagMS = 10.0
	// warnRateShortfall: achieved arrival rate below 95 % of requested.
	warnRateShortfall = 0.95
	// warnMockLateFrac: the mock's p99 step lateness above 10 % of the
	// median TBT means the mock's timing shaped the result.
	warnMockLateFrac = 0.10
	// warnTailSamples: a p99 resting on fewer than 10 requests above it
	// (n < 1000) is mostly noise.
	warnTailSamples = 1000
)

// warnings lists where the measurement of s is doubtful.
func warnings(s *Summary) []string {
	var w []string
	add := func(format string, a ...any) { w = append(w, fmt.Sprintf(format, a...)) }
	switch {
	case s.Stop == nil:
		add("the run was killed: no stop line, figures cover what was written")
	case s.Stop.Reason == "interrupted":
		add("the run was interrupted after %.0f s", s.Stop.Elapsed.Seconds())
	}
	if s.Requests == 0 {
		add("no requests in the measured window (warm-up cut %s)", s.Options.Warmup)
		return w
	}
	if s.ErrorRate > warnErrorRate {
		add("%.1f %% of requests failed (%s); failed requests count as SLA misses", 100*s.ErrorRate, errorList(s.Errors))
	}
	if s.ScheduleLag.P99 > warnLagMS {
		add("schedule lag p99 is %.1f ms (max %.1f ms): the client sent late, so latencies include client delay",
			s.ScheduleLag.P99, s.ScheduleLag.Max)
	}
	if r := s.Rate; r.Requested > 0 && r.Achieved < warnRateShortfall*r.Requested {
		add("achieved arrival rate %.2f req/s is below the requested %.2f req/s", r.Achieved, r.Requested)
	}
	if l := s.MockStepLate.P99; !math.IsNaN(l) && s.TBT.P50 > 0 && l > warnMockLateFrac*s.TBT.P50 {
		add("the mock servers ran steps late (p99 %.2f ms, max %.2f ms against a median TBT of %.2f ms): "+
			"the machine, not the policy, shaped TBT", l, s.MockStepLate.Max, s.TBT.P50)
	}
	if n := s.TTFT.Count; n > 0 && n < warnTailSamples {
		add("only %d successful requests: each p99 is set by the slowest %.1f of them, so it is noisy "+
			"(%d or more give 10 above the p99)", n, float64(n)/100, warnTailSamples)
	}
	return w
}
