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

// speedNote compares the server's own decode time per token (llama.cpp's
// timings: predicted_ms / predicted_n, median) of the live run's
// requests that were alone on their server from sending to the end with
// the model's decode step of one sequence over their median context:
// the like-with-like check of the machine's speed, since a lone request's
// time per token is the step time and nothing else. A server that ran
// faster or slower than when it was calibrated (the host's speed or its
// load moved) shows here, and the TPOT and E2E errors carry it. "" when
// the run has fewer than minLoneRequests such requests (no server timings:
// not llama.cpp).
func speedNote(live string, lat engine.LatencyModel) (string, error) {
	var rs []*results.Result
	err := results.EachResult(live, nil, func(r *results.Result) error {
		if r.OK() && r.Server != nil && r.Server.PredictedN > 1 && r.Server.PredictedMS > 0 {
			rs = append(rs, r)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("predict: %w", err)
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
	if len(perToken) < minLoneRequests {
		return "", nil
	}
	slices.Sort(perToken)
	slices.Sort(ctx)
	measured := perToken[len(perToken)/2]
	model := float64(lat.MeanWith(0, 1, int64(ctx[len(ctx)/2]))) / 1e6
	return fmt.Sprintf("speed check: the %d requests alone on their server decoded at %.3g ms per token (the server's own timings, median), "+
		"the profile's decode step of one sequence at their median context of %d tokens takes %.3g ms (%+.1f %%): "+
		"where the two differ, the server ran at another speed than when it was calibrated, and the TPOT and E2E errors carry it",
		len(perToken), measured, ctx[len(ctx)/2], model, 100*(model/measured-1)), nil
}
