package plan

import (
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// sloCut watches a Run's Results and stops it once more of its planned
// Requests missed the SLO than its attainment target allows: the Run
// can no longer pass, and a plan only needs to know that. Not safe for
// concurrent use (a Run calls it from one goroutine).
type sloCut struct {
	// slo judges each Result; planned is the Requests the Run replays
	// (0: never cut); target the attainment it must reach; missed the
	// Results that missed so far.
	slo     metrics.SLO
	planned int
	target  float64
	missed  int
}

// cutter is the sloCut of the Run rs.
func (p *planner) cutter(rs bench.Spec) *sloCut {
	return &sloCut{slo: rs.Report.SLO, planned: p.planned, target: p.s.Attainment}
}

// check counts r and returns results.StopSLOUnreachable once the Run
// cannot pass.
func (c *sloCut) check(r *results.Result) results.StopReason {
	if c.planned == 0 || metrics.MeetsSLO(c.slo, r) {
		return ""
	}
	// The same comparison as the verdict's, so a cut Run always fails.
	if c.missed++; !(c.bound() >= c.target) {
		return results.StopSLOUnreachable
	}
	return ""
}

// bound is the most attainment a cut Run could have reached: every
// Request not yet missed meeting the SLO.
func (c *sloCut) bound() float64 {
	if c.planned == 0 {
		return 0
	}
	return float64(c.planned-c.missed) / float64(c.planned)
}
