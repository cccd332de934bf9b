package metrics

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tracebench/tracebench/results"
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
func (a *reasoningAcc) add(r *results.Result) int64 {
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
		MeanTokens: Ratio(float64(a.tokens), float64(a.requests)),
		Share:      Ratio(float64(a.tokens), float64(a.outputTokens))}
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
