package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// HTMLFromSweep builds the HTML report of a sweep: its verdict (or, on
// one seed, the highest sustained rate without an interval), the
// per-policy table, the capacity curve, and each policy's run at its
// sustained rate for the distributions and the timeline.
func HTMLFromSweep(s *verdict.Sweep) *html.Report {
	r := &html.Report{Title: s.DisplayTitle(), Verdict: s.Verdict, Capacity: plots.CapacityFromSweep(s), Pareto: plots.ParetoFromSweep(s),
		Table: sweepHTMLTable(s), Glossary: glossaryItems()}
	if r.Verdict == nil {
		r.Verdict, r.VerdictNote = sweepVerdict(s)
	}
	r.Lead = []string{fmt.Sprintf("For each policy, the highest %s at which SLA attainment stayed at or above %s "+
		"(%s; failed requests count as missed). %s The distributions and the timeline are those of each policy's run "+
		"at its sustained %s.", s.Load(), textfmt.Pct(s.Target), metrics.SLOText(s.SLO), methodText(s), s.Load())}
	for _, row := range sweepSetup(s) {
		r.Config = append(r.Config, html.Item{Label: row[0], Value: row[1]})
	}
	r.Runs = sustainedRuns(s)
	if sec, ok := costSection(r.Runs); ok {
		r.Sections = append(r.Sections, sec)
	}
	r.Warnings = htmlWarnings(r.Runs)
	if w := stoppedWarning(s); w != nil {
		r.Warnings = append(r.Warnings, *w)
	}
	return r
}

// sweepVerdict ranks the policies by sustained rate on the one seed run.
func sweepVerdict(s *verdict.Sweep) (*verdict.Verdict, string) {
	if len(s.Policies) < 2 {
		return nil, "One policy: nothing to compare."
	}
	names := make([]string, len(s.Policies))
	sus := map[string][]float64{}
	for i, p := range s.Policies {
		names[i] = p.Policy
		sus[p.Policy] = []float64{p.Sustained}
	}
	return verdict.DecideSweepVerdict(s, names, sus), ""
}

// sweepHTMLTable is the per-policy table; a column with any number sorts
// by the leading number of each cell.
func sweepHTMLTable(s *verdict.Sweep) html.Table {
	head, rows := sweepTable(s)
	t := html.Table{Head: head, Note: fmt.Sprintf("SLA met, goodput and the latency percentiles are those of the run "+
		"at the sustained %s. Gain is the sustained %s over %s's, minus one.", s.Load(), s.Load(), s.Baseline)}
	numeric := make([]bool, len(head))
	for _, row := range rows {
		for c := 1; c < len(row) && c < len(head); c++ {
			numeric[c] = numeric[c] || !math.IsNaN(leadingNumber(row[c]))
		}
	}
	for _, row := range rows {
		cells := make([]html.Cell, len(row))
		for c, x := range row {
			cells[c] = html.TextCell(x)
			if c < len(numeric) && numeric[c] {
				cells[c] = html.NumCell(x, leadingNumber(x))
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// leadingNumber is the number a cell starts with ("+12 %" is 12, "> 8"
// is 8, "×2.5" is 2.5), NaN when there is none or it is not finite.
func leadingNumber(s string) float64 {
	f := strings.Fields(strings.TrimLeft(strings.TrimPrefix(s, "×"), "> "))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(f[0], "+"), "%"), 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// sustainedRuns returns each policy's run at its sustained rate, named
// "policy @ rate req/s"; policies with none are left out.
func sustainedRuns(s *verdict.Sweep) []*metrics.Summary {
	var out []*metrics.Summary
	for i := range s.Policies {
		p := &s.Policies[i]
		st := p.StepAt(p.Sustained)
		if st == nil || st.Summary == nil {
			continue
		}
		c := *st.Summary
		c.SetLabel(fmt.Sprintf("%s @ %s %s", p.Policy, textfmt.Num(st.Rate), s.Unit()))
		out = append(out, &c)
	}
	return out
}

// stoppedWarning lists the policies whose sweep ended early (nil when
// none did).
func stoppedWarning(s *verdict.Sweep) *html.Warning {
	w := &html.Warning{Title: "A policy's sweep stopped early",
		Why: "its sustained rate is the highest that passed before the stop, so its capacity may be higher"}
	for _, p := range s.Policies {
		if p.Stopped != "" {
			w.Lines = append(w.Lines, p.Policy+": "+p.Stopped)
		}
	}
	if len(w.Lines) == 0 {
		return nil
	}
	return w
}
