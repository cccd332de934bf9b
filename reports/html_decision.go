package reports

import (
	"fmt"

	"github.com/tracebench/tracebench/verdict"
)

// addDecision puts bench's two-stage decision into the HTML report: the
// question under the verdict, stage 1's capacity curves, each stage's
// ranking and their agreement (nothing without a decision).
func addDecision(r *HTMLReport, d *verdict.Decision) {
	if d == nil || d.CapacityVerdict == nil {
		return
	}
	r.Verdict = d.CapacityVerdict
	r.Lead = append([]string{"Question: " + d.Question}, r.Lead...)
	target := 0.0
	if d.Capacity != nil {
		target = d.Capacity.Target
	}
	r.Capacity = &CapacityData{Target: target, Curves: d.Curves(),
		Note: "stage 1, virtual time, first seed"}
	r.Sections = append(r.Sections, verdictSection("stage1", fmt.Sprintf(
		"Stage 1: capacity in virtual time (%d seeds, %.0f s)", d.CapacityVerdict.Seeds, d.Stage1.Seconds()),
		"", d.CapacityVerdict))
	if d.Confirm == nil {
		return
	}
	text := fmt.Sprintf("%s. Agreement: %s.", capitalize(d.Stage2Text()), d.Agreement.Text())
	r.Sections = append(r.Sections, verdictSection("stage2", "Stage 2: confirmation in real time", text, d.Confirm))
}

// verdictSection is a section listing a verdict's rows with intervals.
func verdictSection(id, title, text string, v *verdict.Verdict) HTMLSection {
	t := &HTMLTable{Head: []string{"policy", v.Metric}}
	for _, row := range v.Rows {
		t.Rows = append(t.Rows, []HTMLCell{{Text: row.Policy}, {Text: row.Interval(v.Unit)}})
	}
	return HTMLSection{ID: id, Title: title, Text: text, Table: t}
}
