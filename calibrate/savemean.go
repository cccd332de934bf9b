package calibrate

import (
	"math"
	"slices"

	"github.com/tracebench/tracebench/mockserver/engine"
	"gonum.org/v1/gonum/mat"
)

// meanSaved is the mean number of tokens a slot-switch save copied when
// the sets run on an engine of cfg (0 when none saved).
func meanSaved(cfg engine.Config, sets []*replaySet) (float64, error) {
	var saves, tokens int64
	err := eachReplay(cfg, sets, func(st engine.Stats) {
		saves, tokens = saves+st.SlotSaves, tokens+st.SlotSavedTokens
	})
	if err != nil {
		return 0, err
	}
	if saves == 0 {
		return 0, nil
	}
	return float64(tokens) / float64(saves), nil
}

// saveAt is the slot-switch save's cost at m tokens, save_fixed + m ·
// save_per_token (seconds), and its standard error, from a fit's free
// terms, their log values x and covariance cov (log space): var = F²
// var(ln F) + m²P² var(ln P) + 2mFP cov(ln F, ln P). A probe whose saves
// all copy about m tokens fixes this sum well while the split between
// the fixed and the per-token cost stays loose: on the recorded H100
// probe the halves put the save at 268.6 ms + 142.5 µs a token and at
// 341.6 ms + 49.5 µs, which cost the same near 785 tokens. ok is false
// when either term was not fitted or the covariance is unknown.
func saveAt(free []int, x []float64, cov *mat.Dense, m float64) (val, se float64, ok bool) {
	i, j := slices.Index(free, termSaveFixed), slices.Index(free, termSavePerToken)
	if i < 0 || j < 0 || cov == nil {
		return 0, 0, false
	}
	f, p := math.Exp(x[i]), math.Exp(x[j])
	v := f*f*cov.At(i, i) + m*m*p*p*cov.At(j, j) + 2*m*f*p*cov.At(i, j)
	if math.IsNaN(v) {
		return 0, 0, false
	}
	return f + m*p, math.Sqrt(max(0, v)), true
}
