package plots

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// paretoSweep is a ladder of three rates per policy on two replicas:
// per replica output grows with the rate while TPOT grows too.
func paretoSweep() *verdict.Sweep {
	s := &verdict.Sweep{Title: "Pareto", Method: verdict.SweepLadder, Vary: verdict.VaryRate, Target: 0.9, Baseline: "round-robin"}
	for i, policy := range []string{"round-robin", "prefix-cache", "least-request"} {
		p := verdict.SweepPolicy{Policy: policy}
		for j, rate := range []float64{4, 2, 8} {
			tpot := 10 * (1 + rate/4) / float64(i+1) // ms
			sum := &metrics.Summary{Header: headerWith("a", "b"), Requests: 100, OK: 100,
				SLA:        metrics.SLA{Met: 100, Attainment: 1},
				Throughput: metrics.Throughput{OutputTokens: 100 * rate},
				TPOT:       metrics.Dist{Count: 100, P50: tpot}}
			p.Steps = append(p.Steps, verdict.SweepStep{Rate: rate, Pass: j < 2, Summary: sum})
		}
		s.Policies = append(s.Policies, p)
	}
	// A policy without TPOT has no point and no line.
	s.Policies = append(s.Policies, verdict.SweepPolicy{Policy: "no-tpot",
		Steps: []verdict.SweepStep{{Rate: 1, Summary: &metrics.Summary{Header: headerWith("a")}}}})
	return s
}

func TestParetoFromSweep(t *testing.T) {
	d := ParetoFromSweep(paretoSweep())
	if d == nil || len(d.Curves) != 3 {
		t.Fatalf("pareto %+v: want 3 curves", d)
	}
	c := d.Curves[0]
	if len(c.Points) != 3 || c.Points[0].Rate != 2 || c.Points[2].Rate != 8 {
		t.Fatalf("round-robin points %+v: want rates 2, 4, 8 in order", c.Points)
	}
	// Rate 8: 800 tok/s over 2 replicas; TPOT p50 30 ms → 33.3 tok/s per user.
	if pt := c.Points[2]; pt.PerReplica != 400 || math.Abs(pt.PerUser-1000.0/30) > 1e-9 || pt.Pass {
		t.Errorf("rate 8 point %+v: want 400 per replica, 33.3 per user, failed", pt)
	}
	if ParetoFromSweep(&verdict.Sweep{Policies: []verdict.SweepPolicy{{Policy: "x"}}}) != nil {
		t.Error("a sweep without runs has a Pareto plot")
	}
}

// TestSavePareto: one line per policy with a point, each in its own
// colour, and a legend entry for each; nothing is drawn without data.
func TestSavePareto(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pareto.svg")
	ok, err := SavePareto(path, ParetoFromSweep(paretoSweep()))
	if err != nil || !ok {
		t.Fatalf("SavePareto = %v, %v; want a plot", ok, err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The three policies' colours are drawn, the fourth's is not.
	for i := range 4 {
		stroke := svgColor(lineColor(i))
		if got := strings.Contains(string(svg), stroke); got != (i < 3) {
			t.Errorf("colour %d (%s) drawn: %v, want %v", i, stroke, got, i < 3)
		}
	}
	for _, p := range []string{"round-robin", "prefix-cache", "least-request"} {
		if !strings.Contains(string(svg), p) {
			t.Errorf("Pareto SVG has no legend entry for %s", p)
		}
	}
	if strings.Contains(string(svg), "no-tpot") {
		t.Error("a policy without points has a legend entry")
	}
	none := filepath.Join(t.TempDir(), "none.svg")
	if ok, err := SavePareto(none, nil); ok || err != nil {
		t.Errorf("SavePareto(nil) = %v, %v; want nothing drawn", ok, err)
	}
	if _, err := os.Stat(none); !os.IsNotExist(err) {
		t.Errorf("SavePareto(nil) wrote %s", none)
	}
}

// headerWith is a header with the backends named.
func headerWith(backends ...string) results.Header { return results.Header{Backends: backends} }

// svgColor is c as gonum's SVG writer strokes it.
func svgColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("stroke:#%02X%02X%02X;", r>>8, g>>8, b>>8)
}
