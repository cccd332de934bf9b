package verdict

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// Sweep methods (Sweep.Method).
const (
	// SweepSearch brackets and bisects the sustained rate
	// (search.FindSustainedRate).
	SweepSearch = "search"
	// SweepLadder runs a fixed list of rates (search.Ladder).
	SweepLadder = "ladder"
)

// Ways a sweep sets the offered rate (Sweep.Vary).
const (
	// VaryRate replaces the arrival times by a process of the offered
	// rate (--rate) over the Requests in order.
	VaryRate = "rate"
	// VaryTimeScale divides the trace's own arrival times by a factor,
	// so the offered rate is the trace's rate times the factor.
	VaryTimeScale = "time-scale"
	// VaryUsers runs closed-loop users (--users): the value swept is the
	// number of concurrent users, each starting the next session as its
	// last one ends, not a rate.
	VaryUsers = "users"
)

// unit is what the swept value counts: "req/s", or "users".
func (s *Sweep) Unit() string {
	if s.Vary == VaryUsers {
		return "users"
	}
	return "req/s"
}

// short names the swept value in a word: "rate" or "users".
func (s *Sweep) Short() string {
	if s.Vary == VaryUsers {
		return "users"
	}
	return "rate"
}

// load names the swept value: "offered rate" or "concurrent users".
func (s *Sweep) Load() string {
	if s.Vary == VaryUsers {
		return "concurrent users"
	}
	return "offered rate"
}

// Sweep is the outcome of a capacity sweep: for each policy, runs of one
// workload at a series of offered rates and the highest rate whose SLA
// attainment stayed at or above Target. Rates are in requests per second.
type Sweep struct {
	// Title heads the report (default "tracebench sweep").
	Title string `json:"title"`
	// Workload identifies the trace or workload replayed.
	Workload string `json:"workload"`
	// Fleet describes where the runs went (e.g. "4 simulated engines").
	Fleet string `json:"fleet"`
	// Method is SweepSearch or SweepLadder.
	Method string `json:"method"`
	// Vary is VaryRate, VaryTimeScale or VaryUsers (then every "rate"
	// of the sweep is a number of users).
	Vary string `json:"vary"`
	// Arrival is the arrival process with VaryRate: poisson (default),
	// gamma or constant.
	Arrival string `json:"arrival,omitempty"`
	// NativeRate is the workload's own mean arrival rate over the
	// replayed window (NaN or 0 when unknown).
	NativeRate float64 `json:"native_rate"`
	// Requests is the number of Requests each run replays (0 = all).
	Requests int `json:"requests_per_run"`
	// Target is the SLA attainment a rate must reach, in [0, 1].
	Target float64 `json:"target"`
	// MaxErrorRate stops a policy's sweep when a run's error rate
	// exceeds it, in [0, 1].
	MaxErrorRate float64 `json:"max_error_rate"`
	// SLO is the bound every request is held to.
	SLO metrics.SLO `json:"slo"`
	// Warmup is the start of each run left out of its figures.
	Warmup time.Duration `json:"warmup"`
	// Start, Growth, Tolerance and MaxRuns are the search's settings;
	// Rates the ladder's.
	Start     float64   `json:"start,omitempty"`
	Growth    float64   `json:"growth,omitempty"`
	Tolerance float64   `json:"tolerance,omitempty"`
	MaxRuns   int       `json:"max_runs,omitempty"`
	Rates     []float64 `json:"rates,omitempty"`
	// Baseline is the policy gains are measured against.
	Baseline string `json:"baseline"`
	// Policies are the per-policy outcomes in the order run.
	Policies []SweepPolicy `json:"policies"`
	// Verdict, set by a sweep over several seeds, opens the report: the
	// policy with the highest sustained rate and its margin.
	Verdict *Verdict `json:"-"`
}

// SweepPolicy is one policy's sweep.
type SweepPolicy struct {
	// Policy is the policy's display name.
	Policy string `json:"policy"`
	// Steps are the runs in the order made.
	Steps []SweepStep `json:"steps"`
	// Sustained is the highest passing offered rate (0 when none passed).
	Sustained float64 `json:"sustained"`
	// Broken is the lowest failing offered rate (0 when none failed).
	Broken float64 `json:"broken"`
	// Converged is false when the run budget or the rate bounds ended a
	// search before it narrowed to its tolerance.
	Converged bool `json:"converged"`
	// Stopped says why the sweep ended early ("" when it did not).
	Stopped string `json:"stopped,omitempty"`
}

// SweepStep is one run of a sweep: the policy at one offered rate.
type SweepStep struct {
	// Rate is the offered rate.
	Rate float64 `json:"rate"`
	// Pass is the run's attainment ≥ Target, with its error rate within
	// MaxErrorRate.
	Pass bool `json:"pass"`
	// Summary is the run's summary.
	Summary *metrics.Summary `json:"-"`
	// Misses counts which bounds the run's requests missed.
	Misses Misses `json:"misses"`
	// Results is the run's results file, relative to the report.
	Results string `json:"results"`
}

// StepAt returns the step run at rate (the last one when several were),
// or nil.
func (p *SweepPolicy) StepAt(rate float64) *SweepStep {
	if rate <= 0 {
		return nil
	}
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if p.Steps[i].Rate == rate {
			return &p.Steps[i]
		}
	}
	return nil
}

// sorted returns the steps ordered by rate (stable for repeats).
func (p *SweepPolicy) sorted() []SweepStep {
	out := slices.Clone(p.Steps)
	slices.SortStableFunc(out, func(a, b SweepStep) int { return cmp.Compare(a.Rate, b.Rate) })
	return out
}

// Factor is rate over the workload's own rate: the time-scale factor the
// trace's times were divided by (NaN when the native rate is unknown).
func (s *Sweep) Factor(rate float64) float64 {
	if !(s.NativeRate > 0) {
		return math.NaN()
	}
	return rate / s.NativeRate
}

// baseline returns the baseline policy's sweep, or nil.
func (s *Sweep) baseline() *SweepPolicy {
	for i := range s.Policies {
		if s.Policies[i].Policy == s.Baseline {
			return &s.Policies[i]
		}
	}
	return nil
}

// Gain is p's sustained rate over the baseline's, minus one (0.25 = 25 %
// more); NaN when either sustained no rate.
func (s *Sweep) Gain(p *SweepPolicy) float64 {
	b := s.baseline()
	if b == nil || !(b.Sustained > 0) || !(p.Sustained > 0) {
		return math.NaN()
	}
	return p.Sustained/b.Sustained - 1
}

// BrokeBy names what failed first at the lowest failing rate: "errors"
// or the SLO bound most requests missed ("TTFT", "TPOT", "E2E"), with
// the share of requests that missed it, e.g. "TTFT (42.0 %)".
// maxErrorRate is the sweep's error limit (Sweep.MaxErrorRate, a
// fraction in [0, 1]): a run whose error rate exceeds it broke by
// errors whatever most of its requests missed, as the sweep judged it:
// "errors (2.0 % > 1.0 % limit)", or "errors (10.0 %, run cut short)"
// when the limit stopped the run early (stop reason "error-limit"). It
// is "" when no rate failed.
func (p *SweepPolicy) BrokeBy(maxErrorRate float64) string {
	st := p.StepAt(p.Broken)
	if st == nil {
		return ""
	}
	errRate := st.errorRate()
	switch {
	case st.cutOnErrors() && math.IsNaN(errRate):
		return "errors (run cut short)"
	case st.cutOnErrors():
		return fmt.Sprintf("errors (%s, run cut short)", textfmt.Pct(errRate))
	case errRate > maxErrorRate:
		return fmt.Sprintf("errors (%s > %s limit)", textfmt.Pct(errRate), textfmt.Pct(maxErrorRate))
	}
	cause, n := st.Misses.Cause()
	if cause == "" {
		if st.Summary != nil && st.Summary.Requests == 0 {
			return "no requests measured"
		}
		return "attainment"
	}
	return fmt.Sprintf("%s (%s)", cause, textfmt.Pct(metrics.Ratio(float64(n), float64(st.Misses.Requests))))
}

// cutOnErrors reports whether the error limit stopped the step's run
// early (its stop line's reason is "error-limit").
func (st *SweepStep) cutOnErrors() bool {
	return st.Summary != nil && st.Summary.Stop != nil && st.Summary.Stop.Reason == results.StopErrorLimit
}

// errorRate is the step's error rate over its measured window, the
// figure the sweep holds to its limit: the Summary's, or failed over
// counted requests without one; NaN when no request was measured.
func (st *SweepStep) errorRate() float64 {
	if st.Summary != nil && st.Summary.Requests > 0 {
		return st.Summary.ErrorRate
	}
	if st.Summary == nil && st.Misses.Requests > 0 {
		return float64(st.Misses.Errors) / float64(st.Misses.Requests)
	}
	return math.NaN()
}

// DisplayTitle returns the Title or its default.
func (s *Sweep) DisplayTitle() string {
	if s.Title == "" {
		return "tracebench sweep"
	}
	return s.Title
}
