package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// HTMLFromRuns builds the HTML report of runs with o's title, verdict,
// capacity curve, sections, bench's two-stage decision and prediction
// error. Without a verdict, two or more runs of one
// workload get one decided over their single runs (one seed, so no
// interval); a prediction report gets none.
func HTMLFromRuns(runs []*metrics.Summary, o RenderOptions) *HTMLReport {
	o = o.withDefaults()
	labelRuns(runs)
	r := &HTMLReport{Title: o.Title, Verdict: o.Verdict, Runs: runs, Table: comparisonTable(runs),
		Capacity: o.Capacity, Sections: slices.Clone(o.Sections),
		Config: runConfig(runs), ConfigTable: runConfigTable(runs), Warnings: htmlWarnings(runs)}
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
func comparisonTable(runs []*metrics.Summary) HTMLTable {
	t := HTMLTable{Head: []string{"policy"}}
	for _, c := range comparisonColumns {
		t.Head = append(t.Head, c.head)
	}
	marks := best(comparisonColumns, runs)
	for i, s := range runs {
		row := []HTMLCell{TextCell(s.Name())}
		for c, col := range comparisonColumns {
			v := col.value(s)
			cell := NumCell(col.format(v), v)
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
func runConfig(runs []*metrics.Summary) []HTMLItem {
	if len(runs) == 0 {
		return nil
	}
	s := runs[0]
	h := s.Header
	var items []HTMLItem
	if sameWorkload(runs) {
		items = append(items, HTMLItem{"workload", h.Trace},
			HTMLItem{"target", fmt.Sprintf("%s, %d backend(s): %s", h.Mode, len(h.Backends), strings.Join(h.Backends, ", "))})
	}
	items = append(items,
		HTMLItem{"seed", fmt.Sprint(h.Seed)},
		HTMLItem{"tool version", h.Version},
		HTMLItem{"started", h.Started.UTC().Format(time.RFC3339)},
		HTMLItem{"SLO", metrics.SLOText(s.Options.SLO)},
		HTMLItem{"warm-up cut", s.Options.Warmup.String()},
		HTMLItem{"service weights", fmt.Sprintf("w_in %g, w_out %g", s.Options.ServiceWeights.In, s.Options.ServiceWeights.Out)},
		HTMLItem{"fairness window", s.Options.FairnessWindow.String()})
	for _, n := range shardNotes(runs) {
		items = append(items, HTMLItem{"shards", n})
	}
	return items
}

// runConfigTable has a row per run: its policy's parts and parameters,
// requests, measured window and stop reason.
func runConfigTable(runs []*metrics.Summary) *HTMLTable {
	if len(runs) == 0 {
		return nil
	}
	same := sameWorkload(runs)
	t := &HTMLTable{Head: []string{"run", "router", "router params", "queue", "queue params", "requests",
		"measured window s", "stop"}}
	if !same {
		t.Head = append(t.Head, "workload", "backends")
	}
	for _, s := range runs {
		row := []HTMLCell{TextCell(s.Name()), TextCell(s.Header.Router), TextCell(orDefaults(s.Header.RouterParams)),
			TextCell(s.Header.Queue), TextCell(orDefaults(s.Header.QueueParams)),
			NumCell(textfmt.Count(s.Requests), float64(s.Requests)),
			NumCell(fmt.Sprintf("%.1f", s.Window.Seconds), s.Window.Seconds), TextCell(stopReason(s))}
		if !same {
			row = append(row, TextCell(s.Header.Trace),
				TextCell(fmt.Sprintf("%s × %d", s.Header.Mode, len(s.Header.Backends))))
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
func htmlWarnings(runs []*metrics.Summary) []HTMLWarning {
	var out []HTMLWarning
	for _, g := range warningGroups(runs) {
		w := HTMLWarning{Title: capitalize(g.title), Why: g.why}
		for i := range g.runs {
			w.Lines = append(w.Lines, g.line(i, func(s string) string { return s }))
		}
		out = append(out, w)
	}
	return out
}

// predictionSection is the prediction error: each figure measured,
// predicted and the error.
func predictionSection(p *verdict.Prediction) HTMLSection {
	t := &HTMLTable{Head: []string{"metric", "measured", "predicted", "error"}}
	for _, r := range p.Rows {
		t.Rows = append(t.Rows, []HTMLCell{TextCell(r.Metric), NumCell(r.Value(r.Measured), r.Measured),
			NumCell(r.Value(r.Predicted), r.Predicted), NumCell(r.ErrText(), r.Err)})
	}
	return HTMLSection{ID: "prediction", Title: "Prediction error", Table: t,
		Text: "The measured run replayed in virtual time on simulated engines with the profile " + p.Profile +
			": the same requests, arrival times, router and queue. Error is (predicted − measured) / measured; for the " +
			"hit rate, the difference in percentage points. n/a: the figure was not measured on one side."}
}
