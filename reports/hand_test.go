package reports

import (
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

const ms1 = time.Millisecond

// handRun is five Results whose figures are worked out by hand in
// metrics.TestAccumulatorHandComputed.
func handRun() (results.Header, []*results.Result) {
	h := results.Header{Policy: "hand", Router: "hand", Queue: "fcfs", Backends: []string{"b0", "b1"}}
	gaps := func(v time.Duration, n int64) []results.GapBin {
		return []results.GapBin{{V: int64(v / time.Microsecond), N: n}}
	}
	rs := []*results.Result{
		{User: "a", Backend: 0, Intended: 0, Released: 0, Sent: 1 * ms1, FirstToken: 201 * ms1, Done: 701 * ms1,
			InputTokens: 100, OutputTokens: 11, PromptTokens: 100, CompletionTokens: 11, CachedTokens: 50,
			Chunks: 11, Gaps: gaps(50*ms1, 10)},
		{User: "b", Backend: 1, Intended: 1000 * ms1, Released: 1000 * ms1, Sent: 1002 * ms1, FirstToken: 1602 * ms1,
			Done: 2602 * ms1, InputTokens: 200, OutputTokens: 21, PromptTokens: 200, CompletionTokens: 21,
			Chunks: 11, Gaps: gaps(50*ms1, 20), PredictedHitTokens: 100},
		{User: "a", Backend: 0, Intended: 2000 * ms1, Released: 2000 * ms1, Sent: 2001 * ms1, FirstToken: 2101 * ms1,
			Done: 4101 * ms1, InputTokens: 100, OutputTokens: 11, PromptTokens: 100, CompletionTokens: 11,
			CachedTokens: 100, Chunks: 11, Gaps: gaps(200*ms1, 10)},
		{User: "b", Backend: 1, Intended: 3000 * ms1, Released: 3000 * ms1, Sent: 3001 * ms1, Done: 3011 * ms1,
			InputTokens: 300, OutputTokens: 10, Status: 503, ErrClass: results.ErrHTTP5xx},
		{User: "a", Backend: 0, Intended: 9000 * ms1, Released: 9000 * ms1, Sent: 9001 * ms1, FirstToken: 9301 * ms1,
			Done: 10000 * ms1, InputTokens: 50, OutputTokens: 1, PromptTokens: 50, CompletionTokens: 1, Chunks: 1},
	}
	return h, rs
}

func summarizeHand(o metrics.Options) *metrics.Summary {
	return finishHand(o, &results.Stop{Reason: "done", Elapsed: 10 * time.Second})
}

// finishHand folds handRun's Results with options o and finishes with
// the stop line stop (nil for a killed run).
func finishHand(o metrics.Options, stop *results.Stop) *metrics.Summary {
	h, rs := handRun()
	a := metrics.NewAccumulator(h, o)
	for _, r := range rs {
		a.Add(r)
	}
	return a.Finish(stop)
}
