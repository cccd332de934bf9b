package predict

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/verdict"
)

// profileFile writes the built-in "default" profile to a file in a
// temporary directory and returns its path.
func profileFile(t *testing.T) string {
	t.Helper()
	data, ok := profile.BuiltinYAML("default")
	if !ok {
		t.Fatal("no built-in default profile")
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecordKeysByMetricID: the validation and agreement records take
// their figures by metric identity, so the same rows under other display
// labels record the same values; a NaN records 0.
func TestRecordKeysByMetricID(t *testing.T) {
	for _, label := range []func(metrics.MetricID) string{
		metrics.MetricID.Label,
		func(id metrics.MetricID) string { return "renamed " + string(id) },
	} {
		path := profileFile(t)
		pred := &verdict.Prediction{Rows: []verdict.PredictionRow{
			{ID: metrics.MetricTTFTP50, Err: 12.34}, {ID: metrics.MetricTTFTP90, Err: 99},
			{ID: metrics.MetricTPOTP50, Err: -5.06}, {ID: metrics.MetricE2EP50, Err: math.NaN()},
		}}
		for i := range pred.Rows {
			pred.Rows[i].Metric = label(pred.Rows[i].ID)
		}
		if err := RecordValidation(path, "live.jsonl", pred); err != nil {
			t.Fatal(err)
		}
		res := &DirResult{Agreement: []verdict.RankAgreement{
			{ID: metrics.MetricTTFTP50, Tau: 0.333}, {ID: metrics.MetricTTFTP90, Tau: -1}, {ID: metrics.MetricE2EP50, Tau: 0.9},
		}}
		for i := range res.Agreement {
			res.Agreement[i].Metric = label(res.Agreement[i].ID)
		}
		if err := RecordAgreement(path, "bench-dir", res); err != nil {
			t.Fatal(err)
		}
		p, err := profile.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		v := p.Validation[len(p.Validation)-1]
		if v.Run != "live.jsonl" || v.TTFTP50 != 12.3 || v.TPOTP50 != -5.1 || v.E2EP50 != 0 {
			t.Errorf("labels %q: validation %+v, want TTFT 12.3, TPOT -5.1, E2E 0", label(metrics.MetricTTFTP50), v)
		}
		if a := p.Agreement; a == nil || a.TauTTFTP50 != 0.33 || a.TauTTFTP90 != -1 {
			t.Errorf("labels %q: agreement %+v, want τ 0.33 and -1", label(metrics.MetricTTFTP50), a)
		}
	}
}
