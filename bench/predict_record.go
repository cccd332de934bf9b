package bench

import (
	"fmt"
	"math"
	"os"

	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/reports"
)

// RecordValidation appends the prediction's p50 errors (TTFT, TPOT and
// E2E, percent to one decimal) for the measured run live to the
// validation list of the profile file at path; bench and sweep verdicts
// on that profile quote them.
func RecordValidation(path, live string, pred *reports.Prediction) error {
	v := profile.Validation{Run: live}
	for _, r := range pred.Rows {
		e := r.Err
		if math.IsNaN(e) {
			e = 0
		}
		switch r.Metric {
		case "TTFT p50":
			v.TTFTP50 = math.Round(e*10) / 10
		case "TPOT p50":
			v.TPOTP50 = math.Round(e*10) / 10
		case "E2E p50":
			v.E2EP50 = math.Round(e*10) / 10
		}
	}
	return updateProfile(path, "validation", func(p *profile.Profile) { p.Validation = append(p.Validation, v) })
}

// RecordAgreement sets the profile file at path's last rank agreement
// from a bench directory's prediction: Kendall's τ of TTFT p50 and p90,
// whether both verdicts picked the same policy and the largest hit rate
// error; bench and sweep verdicts on that profile quote it.
func RecordAgreement(path, dir string, res *PredictDirResult) error {
	a := &profile.Agreement{Run: dir, Policies: len(res.Policies)}
	for _, pp := range res.Policies {
		a.Seeds = max(a.Seeds, len(pp.Runs))
		for _, r := range pp.Mean.Rows {
			if r.Points && !math.IsNaN(r.Err) {
				a.MaxHitErrPt = max(a.MaxHitErrPt, math.Round(math.Abs(r.Err)*10)/10)
			}
		}
	}
	for _, g := range res.Agreement {
		t := g.Tau
		if math.IsNaN(t) {
			t = 0
		}
		switch g.Metric {
		case "TTFT p50":
			a.TauTTFTP50 = math.Round(t*100) / 100
		case "TTFT p90":
			a.TauTTFTP90 = math.Round(t*100) / 100
		}
	}
	a.SameVerdict = res.Live != nil && res.Sim != nil && res.Live.Pick == res.Sim.Pick
	return updateProfile(path, "agreement", func(p *profile.Profile) { p.Agreement = a })
}

// updateProfile loads the profile file at path, applies set and writes
// it back; what names the record in the write error.
func updateProfile(path, what string, set func(*profile.Profile)) error {
	p, err := profile.Load(path)
	if err != nil {
		return err
	}
	set(p)
	data, err := profile.Marshal(p)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("record the %s in %s: %w", what, path, err)
	}
	return nil
}
