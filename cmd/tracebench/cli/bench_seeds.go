package cli

import (
	"fmt"
	"math"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// profileNote states the expected prediction error of the engine profile
// the runs simulated: a calibrated profile's fit residuals, else that the
// figures describe the model only.
func profileNote(m fleetFlags, live bool) string {
	if live {
		return ""
	}
	p, err := resolveProfile(m.profileName())
	if err != nil {
		return ""
	}
	return profileErrorNote(p)
}

// profileErrorNote describes how far a profile's predictions can be
// trusted.
func profileErrorNote(p *profile.Profile) string {
	note := profileValidationNote(p)
	if a := p.Agreement; a != nil {
		same := "the same policy"
		if !a.SameVerdict {
			same = "a different policy"
		}
		note += fmt.Sprintf("; on its last recorded bench (%s, %d policies, %d seeds) the simulation ranked the policies "+
			"with Kendall τ %+.2f on TTFT p50 and %+.2f on p90, its verdict picked %s, and hit rates were within %.1f points",
			a.Run, a.Policies, a.Seeds, a.TauTTFTP50, a.TauTTFTP90, same, a.MaxHitErrPt)
	}
	return note
}

// profileValidationNote describes a profile's recorded p50 errors, or
// its calibration.
func profileValidationNote(p *profile.Profile) string {
	if n := len(p.Validation); n > 0 {
		var t, o, e float64
		for _, v := range p.Validation {
			t, o, e = max(t, math.Abs(v.TTFTP50)), max(o, math.Abs(v.TPOTP50)), max(e, math.Abs(v.E2EP50))
		}
		return fmt.Sprintf("engine profile %s predicted %d measured run(s) with p50 errors up to TTFT %.1f %%, TPOT %.1f %%, E2E %.1f %% "+
			"(tracebench predict --record)", p.Name, n, t, o, e)
	}
	if p.Fit == nil {
		return fmt.Sprintf("engine profile %s is not calibrated: the figures describe its model, not a measured fleet "+
			"(see 'tracebench calibrate' and 'tracebench predict')", p.Name)
	}
	s := fmt.Sprintf("engine profile %s was calibrated on %d requests; per-request fit residuals", p.Name, p.Fit.Requests)
	for _, r := range p.Fit.Residuals {
		s += fmt.Sprintf(" %s ±%.1f %%", r.Kind, 100*r.RelRMS)
	}
	return s + "; 'tracebench predict' on a measured run gives the error of its percentiles"
}
