package verdict

import (
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestAgree: the agreement of two rankings over the policies the second
// holds: same winner, concordant pairs and Kendall's tau.
func TestAgree(t *testing.T) {
	tests := []struct {
		name       string
		a, b       []string
		same       bool
		pairs, con int
		tau        float64
	}{
		{"same order", []string{"p", "q", "r", "s"}, []string{"p", "q", "r"}, true, 3, 3, 1},
		{"reversed", []string{"p", "q", "r"}, []string{"r", "q", "p"}, false, 3, 0, -1},
		{"one swap", []string{"p", "q", "r"}, []string{"q", "p", "r"}, false, 3, 2, 1.0 / 3},
		{"stage 1 pick not confirmed", []string{"x", "p", "q"}, []string{"p", "q"}, true, 1, 1, 1},
		{"one policy", []string{"p", "q"}, []string{"p"}, true, 0, 0, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := Agree(tc.a, tc.b)
			if g.SameWinner != tc.same || g.Pairs != tc.pairs || g.Concordant != tc.con {
				t.Errorf("agreement %+v, want same %v, %d of %d pairs", g, tc.same, tc.con, tc.pairs)
			}
			if !(math.Abs(g.Tau-tc.tau) < 1e-9 || math.IsNaN(tc.tau) && math.IsNaN(g.Tau)) {
				t.Errorf("tau %g, want %g", g.Tau, tc.tau)
			}
		})
	}
}

// TestDecisionText: the terminal text opens with the verdict, states the
// question, lists both stages and the agreement, and names distorted
// runs (reports' TestDecisionMarkdownCurves checks the markdown).
func TestDecisionText(t *testing.T) {
	capv := DecideCapacityVerdict([]string{"a", "b"}, map[string][]float64{"a": {10, 12, 11}, "b": {8, 9, 8}}, metrics.SLO{})
	conf := decide([]string{"a", "b"}, map[string][]float64{"a": {95, 92, 93}, "b": {60, 70, 65}}, nil, "SLA attainment", "%", "pt")
	d := &Decision{Question: "which router sustains more", CapacityVerdict: capv, Confirm: conf, ConfirmRate: 9.5,
		TimeScale: 4, Distorted: []string{"b (seed 1): schedule lag p99 12 ms > 10 ms"},
		Capacity: &Sweep{Policies: []SweepPolicy{{Policy: "a", Sustained: 11, Steps: []SweepStep{
			{Rate: 20, Summary: &metrics.Summary{}}, {Rate: 5, Pass: true, Summary: &metrics.Summary{SLA: metrics.SLA{Attainment: 1}}}}}}}}
	d.Decide()
	var b strings.Builder
	d.WriteText(&b)
	out := b.String()
	if !strings.HasPrefix(out, "verdict: pick a: sustained rate 11 req/s") {
		t.Errorf("text does not open with the verdict:\n%s", out)
	}
	for _, want := range []string{"question: which router sustains more", "stage 1", "stage 2", "stretched 4×",
		"agreement: the same winner", "1 of 1 pairs ranked alike (Kendall tau 1.00)", "warning: 1 real-time runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
