package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
	"github.com/tracebench/tracebench/results"
)

// showReasoning reports whether a report has reasoning to show: a run
// whose requests reasoned, or an SLO that bounds TTFOT.
func showReasoning(runs []*metrics.Summary) bool {
	return slices.ContainsFunc(runs, func(s *metrics.Summary) bool {
		return s.Reasoning.Requests > 0 || s.Reasoning.NoOutput > 0 || boundsTTFOT(s.Options.SLO)
	})
}

// boundsTTFOT reports an SLO with a TTFOT bound, run-wide or per user.
func boundsTTFOT(slo metrics.SLO) bool {
	if slo.TTFOT > 0 {
		return true
	}
	for _, o := range slo.PerUser {
		if o.TTFOT > 0 {
			return true
		}
	}
	return false
}

// reasoningHead is the reasoning table's header.
var reasoningHead = []string{"run", "reasoning requests", "reasoning tokens / request", "reasoning share of output",
	"TTFT p50 ms", "TTFOT p50 ms", "TTFOT p90 ms", "TTFOT p99 ms", "never left reasoning"}

// reasoningCells is a run's row of the reasoning table: each cell's text
// and the figure it sorts by.
func reasoningCells(s *metrics.Summary) []html.Cell {
	r, d := s.Reasoning, s.TTFOT
	return []html.Cell{html.TextCell(s.Name()),
		html.NumCell(textfmt.Count(r.Requests), float64(r.Requests)),
		html.NumCell(textfmt.Num(r.MeanTokens), r.MeanTokens),
		html.NumCell(textfmt.Pct(r.Share), r.Share),
		html.NumCell(textfmt.Num(distVal(s.TTFT, s.TTFT.P50)), distVal(s.TTFT, s.TTFT.P50)),
		html.NumCell(textfmt.Num(distVal(d, d.P50)), distVal(d, d.P50)),
		html.NumCell(textfmt.Num(distVal(d, d.P90)), distVal(d, d.P90)),
		html.NumCell(textfmt.Num(distVal(d, d.P99)), distVal(d, d.P99)),
		html.NumCell(textfmt.Count(r.NoOutput), float64(r.NoOutput))}
}

// reasoningText introduces the reasoning table.
const reasoningText = "What the users of a reasoning model wait for: TTFT counts the first token of any kind, " +
	"reasoning included; TTFOT (time to first output token) the first token of the answer, after the reasoning. " +
	"A request whose stream never left its reasoning has no TTFOT and misses a TTFOT bound."

// reasoningNotes say, per run, why its TTFOT is n/a.
func reasoningNotes(runs []*metrics.Summary) []string {
	var out []string
	for _, s := range runs {
		if s.Reasoning.TTFOTNote != "" && s.OK > 0 {
			out = append(out, fmt.Sprintf("TTFOT of %s is n/a: %s.", s.Name(), s.Reasoning.TTFOTNote))
		}
	}
	return out
}

// writeReasoning writes the reasoning table when any run reasoned or the
// SLO bounds TTFOT.
func writeReasoning(w io.Writer, runs []*metrics.Summary) {
	if !showReasoning(runs) {
		return
	}
	fmt.Fprintf(w, "### Reasoning\n\n%s\n\n", reasoningText)
	mdTable(w, reasoningHead, "l", cellRows(runs, reasoningCells))
	if notes := reasoningNotes(runs); len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, " "))
	}
	fmt.Fprintln(w)
}

// reasoningSection is the HTML report's reasoning table (ok false when
// there is none to show).
func reasoningSection(runs []*metrics.Summary) (html.Section, bool) {
	if !showReasoning(runs) {
		return html.Section{}, false
	}
	t := cellsTable(runs, reasoningHead, reasoningNotes(runs), reasoningCells)
	return html.Section{ID: "reasoning", Title: "Reasoning", Text: reasoningText, Table: t}, true
}

// ttfotCell is a per-request TTFOT in milliseconds, empty without an
// output token.
func ttfotCell(r *results.Result) string {
	if r.FirstOutput == 0 {
		return ""
	}
	return ms(r.TTFOT())
}
