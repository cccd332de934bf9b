package bench

import (
	"math"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/verdict"
)

// Validate checks the sweep's own settings, before any Run, as
// UsageErrors naming the SweepSpec field; the search's fields (Growth,
// Tolerance, MaxRuns) only without a Ladder. The Base Spec and the
// routers are checked as their Runs build them.
func (s SweepSpec) Validate() error {
	switch {
	case !(s.Attainment > 0 && s.Attainment <= 1):
		return fieldf("SweepSpec.Attainment", "SweepSpec.Attainment %v: want a fraction in (0, 1]", s.Attainment)
	case s.Ladder == nil && !(s.Tolerance > 0 && s.Tolerance < 1):
		return fieldf("SweepSpec.Tolerance", "SweepSpec.Tolerance %v: want a fraction in (0, 1)", s.Tolerance)
	case s.Ladder == nil && s.MaxRuns < 1:
		return fieldf("SweepSpec.MaxRuns", "SweepSpec.MaxRuns %d: want at least 1", s.MaxRuns)
	case s.Ladder == nil && (!(s.Growth > 1) || s.Growth > 100):
		return fieldf("SweepSpec.Growth", "SweepSpec.Growth %v: want a factor in (1, 100]", s.Growth)
	case !(s.MaxErrorRate >= 0 && s.MaxErrorRate <= 1):
		return fieldf("SweepSpec.MaxErrorRate", "SweepSpec.MaxErrorRate %v: want a fraction in [0, 1]", s.MaxErrorRate)
	case s.Cooldown < 0:
		return fieldf("SweepSpec.Cooldown", "SweepSpec.Cooldown %v: want >= 0", s.Cooldown)
	case s.Jobs < 0:
		return fieldf("SweepSpec.Jobs", "SweepSpec.Jobs %d: want 0 (automatic) or more", s.Jobs)
	case s.Vary != verdict.VaryRate && s.Vary != verdict.VaryTimeScale && s.Vary != verdict.VaryUsers:
		return fieldf("SweepSpec.Vary", "SweepSpec.Vary %q: want rate, time-scale or users", s.Vary)
	case s.Vary == verdict.VaryUsers && s.Base.Workload.Sessions.Pacing == string(replay.SessionsOpen):
		return fieldf("SweepSpec.Vary", "SweepSpec.Vary users: users wait for their answers, so they need "+
			"closed-loop sessions (Spec.Workload.Sessions.Pacing is open)")
	}
	for _, r := range s.Ladder {
		if !(r > 0) || math.IsInf(r, 0) {
			return fieldf("SweepSpec.Ladder", "SweepSpec.Ladder %v: want rates > 0 in req/s", s.Ladder)
		}
	}
	return nil
}
