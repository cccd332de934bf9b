package metrics

import (
	"fmt"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/results"
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
	// warnMockLateP50Frac and warnMockLateP99Frac: the mock's step
	// lateness shifts a token's time by as much, so its median shifts
	// every median (TTFT, TBT) and its p99 the tails. A median above 5 %
	// or a p99 above 25 % of the median TBT means the mock's timing shaped
	// the result. The mock paces its steps precisely (internal/pace): on
	// an idle 2-core VM its lateness is about 0.07 ms at the median and
	// 0.1–0.6 ms at p99; a CPU-starved machine gives p99s of 10–40 ms.
	warnMockLateP50Frac = 0.05
	warnMockLateP99Frac = 0.25
	// WarnHostStealPct: CPU steal above 2 % of the machine's CPU time
	// over the run. Runs on a quiet host see 0–0.2 % (0–2 ticks of 1,000
	// over 5 s on 2 CPUs) and keep schedule lag p99 under 1 ms; runs with
	// 10–30 % steal had p99 lag of 5–190 ms at the same rate. The
	// hypervisor takes whole time slices of milliseconds to tens of
	// milliseconds, so even a few percent can delay sends and token
	// timings by that much.
	WarnHostStealPct = 2.0
	// warnBurstShare: more than a quarter of TBT gaps under 0.1 ms
	// (burstGapUS) means the client read chunks in bursts; below
	// warnBurstMinGaps gaps the share is not worth a warning.
	warnBurstShare   = 0.25
	warnBurstMinGaps = 100
	// warnTailSamples: a p99 resting on fewer than 10 requests above it
	// (n < 1000) is mostly noise.
	warnTailSamples = 1000
)

// burstGapUS is the TBT gap, in microseconds, under which two chunks of
// one stream count as read together: a vLLM decode step takes
// milliseconds (the mock's default model: 5.74 ms at batch 1), so a gap
// of under 0.1 ms is a burst, not a step.
const burstGapUS = 100

// Warning says why one figure of one Run is doubtful. Reports group
// warnings with the same title across Runs.
type Warning struct {
	// Title names the problem; Why says what it does to the figures;
	// Detail gives this Run's numbers (may be empty).
	Title, Why, Detail string
}

// Text is the warning as one line.
func (w Warning) Text() string {
	if w.Detail == "" {
		return w.Title + ": " + w.Why
	}
	return w.Title + " (" + w.Detail + "): " + w.Why
}

// Warns returns the Run's warnings, structured for grouping across runs.
func (s *Summary) Warns() []Warning { return s.warns }

// addWarning records a warning in both the structured and text forms.
func (s *Summary) addWarning(w Warning) {
	s.warns = append(s.warns, w)
	s.Warnings = append(s.Warnings, w.Text())
}

// checkWarnings adds a warning wherever the measurement of s is doubtful.
func checkWarnings(s *Summary) {
	stopWarnings(s)
	kvWarnings(s)
	if s.Requests == 0 {
		s.addWarning(Warning{"no requests in the measured window", "there is nothing to report",
			fmt.Sprintf("warm-up cut %s", s.Options.Warmup)})
		return
	}
	if s.ErrorRate > warnErrorRate {
		s.addWarning(Warning{"more than 1 % of requests failed", "failed requests count as SLA misses",
			fmt.Sprintf("%.1f %%: %s", 100*s.ErrorRate, textfmt.ErrorList(s.Errors))})
	}
	timingWarnings(s)
	tokenWarnings(s)
	if s.OverRange > 0 {
		s.addWarning(Warning{"latencies above the histogram's range",
			fmt.Sprintf("values above %g days count as %g days, so percentiles and maxima there are lower bounds",
				histCeiling.Hours()/24, histCeiling.Hours()/24),
			fmt.Sprintf("%d requests", s.OverRange)})
	}
	if n := s.TTFT.Count; n > 0 && n < warnTailSamples {
		s.addWarning(Warning{"too few requests for a reliable p99",
			fmt.Sprintf("a p99 rests on the slowest 1 %% of requests; %d or more give it 10", warnTailSamples),
			fmt.Sprintf("%d successful requests", n)})
	}
}

// stopWarnings warns about a Run that did not run to its end: killed (no
// stop line), interrupted, or cut short on its error rate.
func stopWarnings(s *Summary) {
	switch {
	case s.Stop == nil:
		s.addWarning(Warning{"the run was killed", "there is no stop line; the figures cover what was written", ""})
	case s.Stop.Reason == results.StopInterrupted:
		s.addWarning(Warning{"the run was interrupted", "the figures cover the requests finished by then",
			fmt.Sprintf("after %.0f s", s.Stop.Elapsed.Seconds())})
	case s.Stop.Reason == results.StopErrorLimit:
		s.addWarning(Warning{"the run was cut short on errors",
			"its error rate passed the limit, so it stopped early; the figures cover the requests replayed by then",
			fmt.Sprintf("%d requests replayed in %.0f s", s.Requests+s.WarmupSkipped, s.Stop.Elapsed.Seconds())})
	}
}

// timingWarnings warns when something other than the servers shaped the
// timings: the client (late sends, a short arrival rate, chunks read in
// bursts), the mock servers' own lateness or the host's CPU steal.
func timingWarnings(s *Summary) {
	if s.ScheduleLag.P99 > warnLagMS {
		s.addWarning(Warning{"the client sent requests late", "latencies include the client's own delay",
			fmt.Sprintf("schedule lag p99 %.1f ms, max %.1f ms", s.ScheduleLag.P99, s.ScheduleLag.Max)})
	}
	if r := s.Rate; r.Requested > 0 && r.Achieved < warnRateShortfall*r.Requested {
		s.addWarning(Warning{"the achieved arrival rate fell short of the requested one",
			"the servers saw a lighter load than asked for", fmt.Sprintf("%.2f of %.2f req/s", r.Achieved, r.Requested)})
	}
	mockLateWarning(s)
	if st := s.Host.StealPct; st > WarnHostStealPct {
		s.addWarning(Warning{"the host took CPU time from this machine during the run",
			"timing figures such as schedule lag and TTFT may reflect the host rather than the policy",
			fmt.Sprintf("CPU steal %.1f %% of CPU time", st)})
	}
	if h := s.Host; results.HostLoadContended(h.Load1, h.CPUs) {
		s.addWarning(Warning{"the machine had more threads to run than CPUs at the end of the run",
			"timing figures may reflect other processes rather than the servers and the policy",
			fmt.Sprintf("load average %.1f on %.0f CPUs", h.Load1, h.CPUs)})
	}
	if s.TBT.Count >= warnBurstMinGaps && s.BurstGapShare > warnBurstShare {
		s.addWarning(Warning{"chunks reached the client in bursts",
			"the client fell behind reading its streams, or the servers sent several chunks at once; " +
				"TBT percentiles describe the bursts (TPOT and E2E are unaffected)",
			fmt.Sprintf("%.0f %% of TBT gaps under 0.1 ms; TBT p50 %.2f ms, mean %.2f ms", 100*s.BurstGapShare, s.TBT.P50, s.TBT.Mean)})
	}
}

// mockLateWarning warns when the mock's step lateness passed its share of
// the median TBT (mockLateExcess). Lateness scraped from a separately
// started mock covers its lifetime, so that warning says the late steps
// may predate this run.
func mockLateWarning(s *Summary) {
	l := s.MockStepLate
	why := mockLateExcess(l, s.TBT.P50)
	if why == "" {
		return
	}
	detail := fmt.Sprintf("lateness p99 %.2f ms, max %.1f ms; median TBT %.2f ms", l.P99, l.Max, s.TBT.P50)
	if !l.Lifetime {
		s.addWarning(Warning{"the mock servers ran their steps late",
			"the machine, not the policy, shaped TTFT and TBT (" + why + ")", detail})
		return
	}
	s.addWarning(Warning{"the mock servers ran steps late over their lifetime",
		"the lateness was scraped from a separately started mock and covers every step since it started, " +
			"not only this run's; if this run's steps were as late, the machine, not the policy, shaped TTFT and TBT " +
			"(" + why + "). Start the mock afresh for a run to measure that run alone",
		"lifetime " + detail})
}
