package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/reports/plots"
	"github.com/tracebench/tracebench/verdict"
)

// HTMLFromRuns builds the HTML report of runs with o's title, verdict,
// capacity curve, sections, bench's two-stage decision and prediction
// error. Without a verdict, two or more runs of one
// workload get one decided over their single runs (one seed, so no
// interval); a prediction report gets none.
func HTMLFromRuns(runs []*metrics.Summary, o RenderOptions) *html.Report {
	o = o.withDefaults()
	labelRuns(runs)
	r := &html.Report{Title: o.Title, Verdict: o.Verdict, Runs: runs, Table: comparisonTable(runs),
		Capacity: o.Capacity, Sections: slices.Clone(o.Sections),
		Config: runConfig(runs), ConfigTable: runConfigTable(runs), Warnings: htmlWarnings(runs),
		Glossary: glossaryItems()}
	addDecision(r, o.Decision)
	switch {
	case o.Prediction != nil && r.Verdict == nil:
		r.VerdictNote = fmt.Sprintf("No verdict: this report sets a measured run against its replay on simulated "+
			"engines with the profile %s, not policies against each other; the prediction error is below.", o.Prediction.Profile)
	case r.Verdict == nil:
		r.Verdict, r.VerdictNote = runsVerdict(runs)
	}
	if sec, ok := reasoningSection(runs); ok {
		r.Sections = append(r.Sections, sec)
	}
	if sec, ok := costSection(runs); ok {
		r.Sections = append(r.Sections, sec)
	}
	if o.Prediction != nil {
		r.Sections = append(r.Sections, predictionSection(o.Prediction))
	}
	r.Sections = append(r.Sections, sessionsSection(runs)...)
	if len(runs) > 0 {
		r.Lead = append(r.Lead, fmt.Sprintf("%d run(s). Latencies are in milliseconds and count from each request's "+
			"intended arrival time, so time spent waiting in the client counts. Every figure is defined in the "+
			"glossary at the end.", len(runs)))
	}
	return r
}

// runsVerdict decides between runs of one workload, one run each, or
// says why there is no verdict.
func runsVerdict(runs []*metrics.Summary) (*verdict.Verdict, string) {
	switch {
	case len(runs) == 0:
		return nil, "No runs: nothing to compare."
	case len(runs) == 1:
		return nil, fmt.Sprintf("One run (%s): no other policy to compare it with.", runs[0].Name())
	case !sameWorkload(runs):
		return nil, "No verdict: the runs replayed different workloads or fleets, so their figures do not compare directly."
	}
	names := make([]string, len(runs))
	by := map[string][]*metrics.Summary{}
	for i, s := range runs {
		names[i] = s.Name()
		by[s.Name()] = []*metrics.Summary{s}
	}
	return verdict.DecideVerdict(names, by), ""
}

// comparisonTable is the comparison table's columns, one row per run,
// with the best value of each column marked.
func comparisonTable(runs []*metrics.Summary) html.Table {
	t := html.Table{Head: []string{"policy"}}
	for _, c := range comparisonColumns {
		t.Head = append(t.Head, c.head)
	}
	marks := best(comparisonColumns, runs)
	for i, s := range runs {
		row := []html.Cell{html.TextCell(s.Name())}
		for c, col := range comparisonColumns {
			v := col.value(s)
			cell := html.NumCell(col.format(v), v)
			cell.Best = marks[i][c]
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	if allCompleted(runs) && len(runs) > 1 {
		t.Note = fmt.Sprintf("Every run completed all %d requests, so req/s and tok/s differ only by when the last "+
			"request finished; latency, SLA attainment and hit rate tell the policies apart.", runs[0].Requests)
	}
	return t
}

// runConfig lists what the runs share: workload, fleet, seed, version,
// SLO and measurement settings.
func runConfig(runs []*metrics.Summary) []html.Item {
	if len(runs) == 0 {
		return nil
	}
	s := runs[0]
	h := s.Header
	var items []html.Item
	if sameWorkload(runs) {
		items = append(items, html.Item{Label: "workload", Value: h.Trace},
			html.Item{Label: "target", Value: fmt.Sprintf("%s, %d backend(s): %s", h.Mode, len(h.Backends), strings.Join(h.Backends, ", "))})
	}
	items = append(items,
		html.Item{Label: "seed", Value: fmt.Sprint(h.Seed)},
		html.Item{Label: "tool version", Value: h.Version},
		html.Item{Label: "started", Value: h.Started.UTC().Format(time.RFC3339)},
		html.Item{Label: "SLO", Value: metrics.SLOText(s.Options.SLO)},
		html.Item{Label: "warm-up cut", Value: s.Options.Warmup.String()},
		html.Item{Label: "service weights", Value: fmt.Sprintf("w_in %g, w_out %g", s.Options.ServiceWeights.In, s.Options.ServiceWeights.Out)},
		html.Item{Label: "fairness window", Value: s.Options.FairnessWindow.String()})
	for _, n := range shardNotes(runs) {
		items = append(items, html.Item{Label: "shards", Value: n})
	}
	return items
}

// runConfigTable has a row per run: its policy's parts and parameters,
// requests, measured window and stop reason.
func runConfigTable(runs []*metrics.Summary) *html.Table {
	if len(runs) == 0 {
		return nil
	}
	same := sameWorkload(runs)
	t := &html.Table{Head: []string{"run", "router", "router params", "queue", "queue params", "requests",
		"measured window s", "stop"}}
	if !same {
		t.Head = append(t.Head, "workload", "backends")
	}
	for _, s := range runs {
		row := []html.Cell{html.TextCell(s.Name()), html.TextCell(s.Header.Router), html.TextCell(orDefaults(s.Header.RouterParams)),
			html.TextCell(s.Header.Queue), html.TextCell(orDefaults(s.Header.QueueParams)),
			html.NumCell(textfmt.Count(s.Requests), float64(s.Requests)),
			html.NumCell(fmt.Sprintf("%.1f", s.Window.Seconds), s.Window.Seconds), html.TextCell(stopReason(s))}
		if !same {
			row = append(row, html.TextCell(s.Header.Trace),
				html.TextCell(fmt.Sprintf("%s × %d", s.Header.Mode, len(s.Header.Backends))))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// orDefaults is the parameters as "k=v k=v", or "defaults" when none.
func orDefaults(p map[string]string) string {
	if len(p) == 0 {
		return "defaults"
	}
	return paramsText(p)
}

// htmlWarnings are the runs' warnings grouped by problem.
func htmlWarnings(runs []*metrics.Summary) []html.Warning {
	var out []html.Warning
	for _, g := range warningGroups(runs) {
		w := html.Warning{Title: textfmt.Capitalize(g.title), Why: g.why}
		for i := range g.runs {
			w.Lines = append(w.Lines, g.line(i, func(s string) string { return s }))
		}
		out = append(out, w)
	}
	return out
}

// predictionSection is the prediction error: each figure measured,
// predicted and the error.
func predictionSection(p *verdict.Prediction) html.Section {
	t := &html.Table{Head: []string{"metric", "measured", "predicted", "error"}}
	for _, r := range p.Rows {
		t.Rows = append(t.Rows, []html.Cell{html.TextCell(r.Metric), html.NumCell(r.Value(r.Measured), r.Measured),
			html.NumCell(r.Value(r.Predicted), r.Predicted), html.NumCell(r.ErrText(), r.Err)})
	}
	return html.Section{ID: "prediction", Title: "Prediction error", Table: t,
		Text: "The measured run replayed in virtual time on simulated engines with the profile " + p.Profile +
			": the same requests, arrival times, router and queue. Error is (predicted − measured) / measured; for the " +
			"hit rate, the difference in percentage points. n/a: the figure was not measured on one side."}
}

// addDecision puts bench's two-stage decision into the HTML report: the
// question under the verdict, stage 1's capacity curves, each stage's
// ranking and their agreement (nothing without a decision).
func addDecision(r *html.Report, d *verdict.Decision) {
	if d == nil || d.CapacityVerdict == nil {
		return
	}
	r.Verdict = d.CapacityVerdict
	r.Lead = append([]string{"Question: " + d.Question}, r.Lead...)
	target := 0.0
	if d.Capacity != nil {
		target = d.Capacity.Target
	}
	r.Capacity = &plots.CapacityData{Target: target, Curves: d.Curves(),
		Note: "stage 1, virtual time, first seed"}
	r.Sections = append(r.Sections, verdictSection("stage1", fmt.Sprintf(
		"Stage 1: capacity in virtual time (%d seeds, %.0f s)", d.CapacityVerdict.Seeds, d.Stage1.Seconds()),
		"", d.CapacityVerdict))
	if d.Confirm == nil {
		return
	}
	text := fmt.Sprintf("%s. Agreement: %s.", textfmt.Capitalize(d.Stage2Text()), d.Agreement.Text())
	r.Sections = append(r.Sections, verdictSection("stage2", "Stage 2: confirmation in real time", text, d.Confirm))
}

// verdictSection is a section listing a verdict's rows with intervals.
func verdictSection(id, title, text string, v *verdict.Verdict) html.Section {
	t := &html.Table{Head: []string{"policy", v.Metric}}
	for _, row := range v.Rows {
		t.Rows = append(t.Rows, []html.Cell{{Text: row.Policy}, {Text: row.Interval(v.Unit)}})
	}
	return html.Section{ID: id, Title: title, Text: text, Table: t}
}
