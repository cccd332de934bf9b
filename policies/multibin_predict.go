package policies

import (
	"math"
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
)

// Output-length predictors of the multi-bin Queue.
const (
	// predOracle predicts the trace's output length exactly.
	predOracle = "oracle"
	// predNoisy multiplies it by exp(σ·Z), Z standard normal (a
	// median-unbiased log-normal error), rounded, at least 1.
	predNoisy = "noisy"
	// predBucket predicts the right bin with probability p, else a
	// neighbouring bin (either side with equal chance, the only one at an
	// end); the predicted length is the true length moved to the nearest
	// length inside the predicted bin.
	predBucket = "bucket"
)

// lengthPredictor fills Request.PredictedOutput.
type lengthPredictor struct {
	kind  string
	sigma float64
	p     float64
	rng   *rand.Rand
}

// predict sets req.PredictedOutput. bounds are the current bins (nil
// during the warm-up window, when bucket predicts the oracle length; it is
// re-predicted once the bins are known).
func (lp *lengthPredictor) predict(req *traces.Request, bounds []BinRange) {
	n := max(0, req.OutputTokens)
	switch lp.kind {
	case predNoisy:
		v := math.Round(float64(n) * math.Exp(lp.sigma*lp.rng.NormFloat64()))
		req.PredictedOutput = int(math.Max(1, math.Min(v, math.MaxInt32)))
	case predBucket:
		req.PredictedOutput = n
		if len(bounds) > 1 {
			req.PredictedOutput = lp.bucket(n, bounds)
		}
	default:
		req.PredictedOutput = n
	}
}

// bucket moves length n into the predicted bin.
func (lp *lengthPredictor) bucket(n int, bounds []BinRange) int {
	i := binOf(n, bounds)
	if lp.rng.Float64() < lp.p {
		return n
	}
	j := i + 1
	switch {
	case i == 0:
	case i == len(bounds)-1:
		j = i - 1
	case lp.rng.IntN(2) == 0:
		j = i - 1
	}
	b := bounds[j]
	return clampInt(n, b.Lo, b.Hi-1)
}
