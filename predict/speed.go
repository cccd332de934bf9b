package predict

import (
	"fmt"
	"slices"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
)

// minLoneRequests is the fewest lone requests with the server's own
// timings that speedNote compares.
const minLoneRequests = 5

// LoneSpeed is the server's own decode speed over a run's requests that
// were alone on their server from sending to the end (llama.cpp's
// timings): a lone request's time per token is the step time of one
// sequence and nothing else.
type LoneSpeed struct {
	// N counts the lone requests with the server's timings.
	N int
	// PerTokenMS is the median of predicted_ms / predicted_n, ms.
	PerTokenMS float64
	// Context is the median of prompt_n + cache_n + predicted_n/2, tokens.
	Context int
}

// LoneDecode reads the lone requests' speed of the results file at path
// (N 0 when none carries the server's timings: not llama.cpp).
func LoneDecode(path string) (LoneSpeed, error) {
	var rs []*results.Result
	err := results.EachResult(path, nil, func(r *results.Result) error {
		if r.OK() && r.Server != nil && r.Server.PredictedN > 1 && r.Server.PredictedMS > 0 {
			rs = append(rs, r)
		}
		return nil
	})
	if err != nil {
		return LoneSpeed{}, fmt.Errorf("predict: %w", err)
	}
	var perToken []float64
	var ctx []int
	for _, r := range rs {
		if slices.ContainsFunc(rs, func(o *results.Result) bool {
			return o != r && o.Backend == r.Backend && o.Sent < r.Done && r.Sent < o.Done
		}) {
			continue
		}
		perToken = append(perToken, r.Server.PredictedMS/float64(r.Server.PredictedN))
		ctx = append(ctx, r.Server.PromptN+r.Server.CacheN+r.Server.PredictedN/2)
	}
	if len(perToken) == 0 {
		return LoneSpeed{}, nil
	}
	slices.Sort(perToken)
	slices.Sort(ctx)
	return LoneSpeed{N: len(perToken), PerTokenMS: perToken[len(perToken)/2], Context: ctx[len(ctx)/2]}, nil
}

// modelStepMS is lat's decode step of one sequence at the lone requests'
// median context, ms: what their decode per token would be at the
// profile's speed.
func (ls LoneSpeed) modelStepMS(lat engine.LatencyModel) float64 {
	return float64(lat.MeanWith(0, 1, int64(ls.Context))) / 1e6
}

// speedNote compares the live run's LoneDecode, ls, with the model's decode
// step of one sequence over the lone requests' median context: the
// like-with-like check of the machine's speed. A server that ran faster
// or slower than when it was calibrated (the host's speed or its load
// moved) shows here, and the TPOT and E2E errors carry it. "" when the
// run has fewer than minLoneRequests lone requests with timings.
func speedNote(ls LoneSpeed, lat engine.LatencyModel) string {
	if ls.N < minLoneRequests {
		return ""
	}
	model := ls.modelStepMS(lat)
	return fmt.Sprintf("speed check: the %d requests alone on their server decoded at %.3g ms per token (the server's own timings, median), "+
		"the profile's decode step of one sequence at their median context of %d tokens takes %.3g ms (%+.1f %%): "+
		"where the two differ, the server ran at another speed than when it was calibrated, and the TPOT and E2E errors carry it",
		ls.N, ls.PerTokenMS, ls.Context, model, 100*(model/ls.PerTokenMS-1))
}
