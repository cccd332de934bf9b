package reports

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/verdict"
)

// writeVerdict writes the report's opening "Verdict" section (nothing
// without a verdict).
func writeVerdict(w io.Writer, v *verdict.Verdict) {
	if v == nil {
		return
	}
	fmt.Fprintf(w, "## Verdict\n\n**%s.** SLO: %s. ", textfmt.Capitalize(v.Headline()), v.SLO)
	fmt.Fprintf(w, "Each policy ran the workload and arrivals of %d seed(s); the margin is the mean of the "+
		"per-seed differences with its 95 %% Student-t confidence interval, and a difference whose interval "+
		"holds 0 is called a tie.", v.Seeds)
	for _, n := range []string{v.ProfileNote, v.LiveNote} {
		if n != "" {
			fmt.Fprintf(w, " %s.", textfmt.Capitalize(strings.TrimSuffix(n, ".")))
		}
	}
	fmt.Fprintf(w, "\n\n")
	head := []string{"policy", v.Metric}
	if !math.IsNaN(v.Rows[0].Goodput) {
		head = append(head, "goodput req/s")
	}
	rows := make([][]string, 0, len(v.Rows))
	for _, r := range v.Rows {
		row := []string{mdEscape(r.Policy), r.Interval(v.Unit)}
		if len(head) > 2 {
			row = append(row, fmt.Sprintf("%.3g", r.Goodput))
		}
		rows = append(rows, row)
	}
	mdTable(w, head, "lrr", rows)
}

// writeDecision writes the report's "Decision" section: the question,
// both stages and their agreement (nothing without a decision).
func writeDecision(w io.Writer, d *verdict.Decision) {
	if d == nil || d.CapacityVerdict == nil {
		return
	}
	fmt.Fprintf(w, "## Decision\n\nQuestion: %s\n\n", d.Question)
	what := "each policy's sustained rate, the highest offered rate meeting the SLA"
	if d.Users() {
		what = "the most concurrent closed-loop users each policy serves under the SLA"
	}
	fmt.Fprintf(w, "**Stage 1, capacity in virtual time** (%.0f s): %s, searched on %d seeds (files under `capacity/`, "+
		"report `capacity/sweep.md`).\n\n", d.Stage1.Seconds(), what, d.CapacityVerdict.Seeds)
	writeVerdictRows(w, d.CapacityVerdict)
	writeCurves(w, d.Curves(), d.Unit())
	if d.Confirm == nil {
		return
	}
	fmt.Fprintf(w, "**Stage 2, confirmation in real time**: %s. %s.\n\n", d.Stage2Text(), textfmt.Capitalize(d.Confirm.Headline()))
	writeVerdictRows(w, d.Confirm)
	fmt.Fprintf(w, "**Agreement**: %s.\n\n", d.Agreement.Text())
	if len(d.Distorted) > 0 {
		fmt.Fprintf(w, "**Warning**: %d real-time runs were distorted by the machine: %s.\n\n",
			len(d.Distorted), mdEscape(strings.Join(d.Distorted, "; ")))
	}
}

// writeVerdictRows writes a verdict's per-policy table.
func writeVerdictRows(w io.Writer, v *verdict.Verdict) {
	rows := make([][]string, 0, len(v.Rows))
	for _, r := range v.Rows {
		rows = append(rows, []string{mdEscape(r.Policy), r.Interval(v.Unit)})
	}
	mdTable(w, []string{"policy", v.Metric}, "lr", rows)
}

// writeCurves writes the capacity curves of stage 1's first seed, one
// row per policy: each run's rate and attainment in rate order.
func writeCurves(w io.Writer, cs []verdict.CapacityCurve, unit string) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "Capacity curves (first seed; offered %s: SLA met, ✓ passed):\n\n", unit)
	rows := make([][]string, 0, len(cs))
	for _, c := range cs {
		pts := make([]string, len(c.Points))
		for i, p := range c.Points {
			mark := ""
			if p.Pass {
				mark = " ✓"
			}
			pts[i] = fmt.Sprintf("%.4g: %.1f %%%s", p.Rate, 100*p.Attainment, mark)
		}
		rows = append(rows, []string{mdEscape(c.Policy), fmt.Sprintf("%.4g", c.Sustained), strings.Join(pts, ", ")})
	}
	mdTable(w, []string{"policy", "sustained " + unit, "runs"}, "lrl", rows)
}

// writePrediction writes the report's "Prediction error" section (nothing
// without a prediction).
func writePrediction(w io.Writer, p *verdict.Prediction) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "## Prediction error\n\n")
	fmt.Fprintf(w, "The measured run replayed in virtual time on %d simulated engines with the profile %s: "+
		"the same requests, arrival times, router and queue. Error is (predicted − measured) / measured; "+
		"for the hit rate, the difference in percentage points. n/a: the figure was not measured on one side.\n\n",
		len(p.Predicted.Header.Backends), mdEscape(p.Profile))
	rows := make([][]string, 0, len(p.Rows))
	for _, r := range p.Rows {
		rows = append(rows, []string{r.Metric, r.Value(r.Measured), r.Value(r.Predicted), r.ErrText()})
	}
	mdTable(w, []string{"metric", "measured", "predicted", "error"}, "lrrr", rows)
}
