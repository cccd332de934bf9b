package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// TestParetoInSweepReport: a sweep whose runs measured TPOT gets the
// Pareto plot, embedded in sweep.md and drawn in report.html.
func TestParetoInSweepReport(t *testing.T) {
	sum := &metrics.Summary{Header: results.Header{Backends: []string{"a", "b"}}, Requests: 100, OK: 100,
		SLA: metrics.SLA{Met: 100, Attainment: 1}, Throughput: metrics.Throughput{OutputTokens: 400},
		TPOT: metrics.Dist{Count: 100, P50: 20}}
	s := &verdict.Sweep{Title: "Pareto", Method: verdict.SweepLadder, Vary: verdict.VaryRate, Target: 0.9,
		Baseline: "round-robin", Policies: []verdict.SweepPolicy{{Policy: "round-robin",
			Steps: []verdict.SweepStep{{Rate: 4, Pass: true, Summary: sum}}}}}
	dir := t.TempDir()
	if err := WriteSweepDir(dir, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sweepParetoFile)); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, html.File))
	md, _ := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if !strings.Contains(string(page), `id="plot-pareto"`) || !strings.Contains(string(page), "tokens/s per user") {
		t.Error("report.html lacks the Pareto plot")
	}
	if !strings.Contains(string(md), "("+sweepParetoFile+")") {
		t.Error("sweep.md does not embed the Pareto plot")
	}
}
