package predict

import (
	"fmt"
	"math"
	"os"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/verdict"
)

// RecordValidation appends the prediction's p50 errors (TTFT, TPOT and
// E2E, percent to one decimal) for the measured run live to the
// validation list of the profile file at path; bench and sweep verdicts
// on that profile quote them.
func RecordValidation(path, live string, pred *verdict.Prediction) error {
	v := profile.Validation{Run: live}
	fields := map[metrics.MetricID]*float64{metrics.MetricTTFTP50: &v.TTFTP50, metrics.MetricTPOTP50: &v.TPOTP50,
		metrics.MetricE2EP50: &v.E2EP50}
	for _, r := range pred.Rows {
		setRounded(fields[r.ID], r.Err, 10)
	}
	return updateProfile(path, "validation", func(p *profile.Profile) { p.Validation = append(p.Validation, v) })
}

// RecordAgreement sets the profile file at path's last rank agreement
// from a bench directory's prediction: Kendall's τ of TTFT p50 and p90,
// whether both verdicts picked the same policy and the largest hit rate
// error; bench and sweep verdicts on that profile quote it.
func RecordAgreement(path, dir string, res *DirResult) error {
	a := &profile.Agreement{Run: dir, Policies: len(res.Policies)}
	for _, pp := range res.Policies {
		a.Seeds = max(a.Seeds, len(pp.Runs))
		for _, r := range pp.Mean.Rows {
			if r.Points && !math.IsNaN(r.Err) {
				a.MaxHitErrPt = max(a.MaxHitErrPt, math.Round(math.Abs(r.Err)*10)/10)
			}
		}
	}
	fields := map[metrics.MetricID]*float64{metrics.MetricTTFTP50: &a.TauTTFTP50, metrics.MetricTTFTP90: &a.TauTTFTP90}
	for _, g := range res.Agreement {
		setRounded(fields[g.ID], g.Tau, 100)
	}
	a.SameVerdict = res.Live != nil && res.Sim != nil && res.Live.Pick == res.Sim.Pick
	return updateProfile(path, "agreement", func(p *profile.Profile) { p.Agreement = a })
}

// setRounded sets *field (when field is not nil) to x rounded to 1/per
// (0 for NaN: not known).
func setRounded(field *float64, x, per float64) {
	if field == nil {
		return
	}
	if math.IsNaN(x) {
		x = 0
	}
	*field = math.Round(x*per) / per
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
