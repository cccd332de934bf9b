package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// runsOf is one Summary per seed with the given SLA attainments.
func runsOf(att ...float64) []*metrics.Summary {
	var out []*metrics.Summary
	for _, a := range att {
		out = append(out, &metrics.Summary{SLA: metrics.SLA{Attainment: a, Goodput: a}})
	}
	return out
}

func TestPredictionGolden(t *testing.T) {
	runs := goldenSummaries(t)
	if len(runs) < 2 {
		t.Fatal("want two golden runs")
	}
	p := verdict.ComparePrediction("calibrated", runs[0], runs[1])
	var b bytes.Buffer
	if err := p.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	writePrediction(&b, p)
	checkGolden(t, "prediction.txt", b.Bytes())
}

func TestVerdictMarkdownGolden(t *testing.T) {
	v := verdict.DecideVerdict([]string{"prefix-cache", "round-robin", "least-request"}, map[string][]*metrics.Summary{
		"prefix-cache": runsOf(0.76, 0.8, 0.71, 0.79), "round-robin": runsOf(0.68, 0.7, 0.65, 0.7),
		"least-request": runsOf(0.64, 0.67, 0.6, 0.68)})
	v.SLO, v.ProfileNote = "TTFT ≤ 30ms", "engine profile default is not calibrated"
	var b bytes.Buffer
	v.WriteText(&b)
	b.WriteString("\n")
	writeVerdict(&b, v)
	checkGolden(t, "verdict.txt", b.Bytes())
}

// TestDecisionMarkdownCurves: the markdown section of a decision holds
// the capacity curves, in rate order.
func TestDecisionMarkdownCurves(t *testing.T) {
	capv := verdict.DecideCapacityVerdict([]string{"a", "b"}, map[string][]float64{"a": {10, 12, 11}, "b": {8, 9, 8}}, metrics.SLO{})
	d := &verdict.Decision{Question: "which router sustains more", CapacityVerdict: capv, Confirm: capv, ConfirmRate: 9.5,
		Capacity: &verdict.Sweep{Policies: []verdict.SweepPolicy{{Policy: "a", Sustained: 11, Steps: []verdict.SweepStep{
			{Rate: 20, Summary: &metrics.Summary{}}, {Rate: 5, Pass: true, Summary: &metrics.Summary{SLA: metrics.SLA{Attainment: 1}}}}}}}}
	d.Decide()
	var md strings.Builder
	writeDecision(&md, d)
	if !strings.Contains(md.String(), "| a | 11 | 5: 100.0 % ✓, 20: 0.0 % |") {
		t.Errorf("markdown lacks the capacity curve in rate order:\n%s", md.String())
	}
}
