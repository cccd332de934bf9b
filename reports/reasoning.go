package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tracebench/tracebench/replay"
)

// Reasoning is what a Run's reasoning models spent on reasoning, over
// its successful requests.
type Reasoning struct {
	// Requests counts the requests with reasoning tokens.
	Requests int64 `json:"requests"`
	// Tokens is Σ reasoning tokens; MeanTokens is Tokens / Requests (NaN
	// when none reasoned).
	Tokens     int64   `json:"tokens"`
	MeanTokens float64 `json:"mean_tokens"`
	// Share is Tokens / Σ output tokens, in [0, 1] (NaN with no output
	// tokens): the part of the decoded output the users do not read as
	// the answer.
	Share float64 `json:"share"`
	// NoOutput counts the requests whose stream never left its reasoning
	// (no output token: their TTFOT is n/a and they miss a TTFOT bound).
	NoOutput int64 `json:"no_output"`
	// TTFOTNote says why TTFOT is n/a when no request had an output
	// token ("" when some did).
	TTFOTNote string `json:"ttfot_note,omitempty"`
}

// reasoningAcc accumulates the reasoning figures of successful requests.
type reasoningAcc struct {
	ttfot                                   *hdrhistogram.Histogram
	requests, tokens, noOutput, withTokens  int64
	outputTokens, withFirstToken, withFirst int64
}

func newReasoningAcc() reasoningAcc { return reasoningAcc{ttfot: newHist()} }

// add folds in a successful request; it returns 1 when its TTFOT was
// clamped to the histogram's ceiling.
func (a *reasoningAcc) add(r *replay.Result) int64 {
	a.outputTokens += int64(r.CompletionTokens)
	if r.FirstToken > 0 {
		a.withFirstToken++
	}
	if r.ReasoningTokens > 0 {
		a.requests++
		a.tokens += int64(r.ReasoningTokens)
	}
	if r.NoOutput() {
		a.noOutput++
	}
	if r.FirstOutput == 0 {
		return 0
	}
	a.withFirst++
	return recordDur(a.ttfot, r.TTFOT())
}

// finish freezes the figures.
func (a *reasoningAcc) finish() (Dist, Reasoning) {
	r := Reasoning{Requests: a.requests, Tokens: a.tokens, NoOutput: a.noOutput,
		MeanTokens: ratio(float64(a.tokens), float64(a.requests)),
		Share:      ratio(float64(a.tokens), float64(a.outputTokens))}
	if a.withFirst == 0 {
		r.TTFOTNote = a.naReason()
	}
	return distOf(a.ttfot), r
}

// naReason says why no request has a TTFOT.
func (a *reasoningAcc) naReason() string {
	switch {
	case a.noOutput > 0:
		return fmt.Sprintf("no stream left its reasoning: all %d request(s) with tokens spent them on reasoning "+
			"(max_tokens reached while thinking)", a.noOutput)
	case a.withFirstToken > 0:
		return "the results file does not record first output tokens (written before they were measured)"
	}
	return "no successful request received a token"
}

// showReasoning reports whether a report has reasoning to show: a run
// whose requests reasoned, or an SLO that bounds TTFOT.
func showReasoning(runs []*Summary) bool {
	return slices.ContainsFunc(runs, func(s *Summary) bool {
		return s.Reasoning.Requests > 0 || s.Reasoning.NoOutput > 0 || boundsTTFOT(s.Options.SLO)
	})
}

// boundsTTFOT reports an SLO with a TTFOT bound, run-wide or per user.
func boundsTTFOT(slo SLO) bool {
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
func reasoningCells(s *Summary) []HTMLCell {
	r, d := s.Reasoning, s.TTFOT
	return []HTMLCell{TextCell(s.Name()),
		NumCell(fmtCount(r.Requests), float64(r.Requests)),
		NumCell(fmtNum(r.MeanTokens), r.MeanTokens),
		NumCell(fmtPct(r.Share), r.Share),
		NumCell(fmtNum(distVal(s.TTFT, s.TTFT.P50)), distVal(s.TTFT, s.TTFT.P50)),
		NumCell(fmtNum(distVal(d, d.P50)), distVal(d, d.P50)),
		NumCell(fmtNum(distVal(d, d.P90)), distVal(d, d.P90)),
		NumCell(fmtNum(distVal(d, d.P99)), distVal(d, d.P99)),
		NumCell(fmtCount(r.NoOutput), float64(r.NoOutput))}
}

// reasoningText introduces the reasoning table.
const reasoningText = "What the users of a reasoning model wait for: TTFT counts the first token of any kind, " +
	"reasoning included; TTFOT (time to first output token) the first token of the answer, after the reasoning. " +
	"A request whose stream never left its reasoning has no TTFOT and misses a TTFOT bound."

// reasoningNotes say, per run, why its TTFOT is n/a.
func reasoningNotes(runs []*Summary) []string {
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
func writeReasoning(w io.Writer, runs []*Summary) {
	if !showReasoning(runs) {
		return
	}
	fmt.Fprintf(w, "### Reasoning\n\n%s\n\n", reasoningText)
	var rows [][]string
	for _, s := range runs {
		var row []string
		for _, c := range reasoningCells(s) {
			row = append(row, c.Text)
		}
		row[0] = mdEscape(row[0])
		rows = append(rows, row)
	}
	mdTable(w, reasoningHead, "l", rows)
	if notes := reasoningNotes(runs); len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, " "))
	}
	fmt.Fprintln(w)
}

// reasoningSection is the HTML report's reasoning table (ok false when
// there is none to show).
func reasoningSection(runs []*Summary) (HTMLSection, bool) {
	if !showReasoning(runs) {
		return HTMLSection{}, false
	}
	t := &HTMLTable{Head: reasoningHead, Note: strings.Join(reasoningNotes(runs), " ")}
	for _, s := range runs {
		t.Rows = append(t.Rows, reasoningCells(s))
	}
	return HTMLSection{ID: "reasoning", Title: "Reasoning", Text: reasoningText, Table: t}, true
}

// ttfotCell is a per-request TTFOT in milliseconds, empty without an
// output token.
func ttfotCell(r *replay.Result) string {
	if r.FirstOutput == 0 {
		return ""
	}
	return ms(r.TTFOT())
}
