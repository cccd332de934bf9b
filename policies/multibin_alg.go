package policies

import (
	"math"
	"time"
)

// Constants of the multi-bin SLA controller and statistics, from the
// multi-bin dynamic batching specification (Algorithms 1, 2 and 7) built on
// Guldogan et al., arXiv:2412.04504.
const (
	// mbAlpha is α, the interval expansion/contraction step of Algorithm 2.
	mbAlpha = 4
	// mbDelta is δ, the small correction step of Algorithm 2.
	mbDelta = 2
	// mbEMA is the EMA smoothing factor of Algorithm 7.
	mbEMA = 0.2
	// mbWarmupUpdates is how many Algorithm 7 updates a controller needs
	// before Algorithm 2 leaves the interval midpoint.
	mbWarmupUpdates = 3
	// mbSafety is ρ: the safety buffer L₀ is this fraction of the token
	// capacity η (Algorithm 1, ε_M ≈ 0.05).
	mbSafety = 0.1
	// mbDefaultTokens is E[l_in + l_out] before any statistics (Algorithm 1).
	mbDefaultTokens = 500.0
	// mbLastBinHi is the upper edge the specification gives the last bin (Algorithm 6).
	mbLastBinHi = 10000
)

// mbConfig is the multi-bin scheduler configuration; field names follow the
// specification's SchedulerConfig.
type mbConfig struct {
	MMaxGB, MModelGB, KVMemPerTokenGB float64
	BMin, BMax                        int
	// BinBMax is the per-bin batch limit (empty: none).
	BinBMax []int
	// DSLA and EpsD are the decode TBT target and tolerance.
	DSLA, EpsD time.Duration
	// MaxCandidates bounds how many Requests Algorithm 5 takes from a bin.
	MaxCandidates int
}

// eta is η, the KV token capacity: (M_MAX_GB − M_MODEL_GB) / KV_MEM_PER_TOKEN_GB.
func (c *mbConfig) eta() float64 { return (c.MMaxGB - c.MModelGB) / c.KVMemPerTokenGB }

// mbStats are the running batch statistics of Algorithms 1 and 7 (EMA of
// mean prompt and output length, in tokens). They start at zero, as in the
// specification; Algorithm 1 uses 500 tokens until they are positive.
type mbStats struct{ avgPrompt, avgOutput float64 }

// bMem is Algorithm 1: b_mem = ⌊(η − L₀) / E[l_in + l_out]⌋ with L₀ = 0.1 η,
// capped by BIN_B_MAX[bin] when bin ≥ 0 and the list is given, clamped to
// [B_MIN, B_MAX].
func bMem(s mbStats, c *mbConfig, bin int) int {
	eta := c.eta()
	e := s.avgPrompt + s.avgOutput
	if e <= 0 {
		e = mbDefaultTokens
	}
	f := math.Floor((eta - mbSafety*eta) / e)
	b := int(math.Min(math.Max(f, math.MinInt32), math.MaxInt32))
	if bin >= 0 && bin < len(c.BinBMax) {
		b = min(b, c.BinBMax[bin])
	}
	return clampInt(b, c.BMin, c.BMax)
}

// clampInt limits v to [lo, hi].
func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// mbController is the SLA controller of Algorithms 2 and 7: the adaptive
// interval [bLow, bHigh], the EMAs τ_avg (seconds) and b_avg, the decode
// count N_decode and the number of updates.
type mbController struct {
	bLow, bHigh int
	tauAvg      float64
	bAvg        float64
	nDecode     int
	updates     int
}

// newController starts with the widest interval [B_MIN, B_MAX].
func newController(c *mbConfig) mbController {
	return mbController{bLow: c.BMin, bHigh: c.BMax}
}

// bSLA is Algorithm 2. It moves the interval (so call it once per batch
// formed) and returns b_SLA. While τ_avg is 0 or fewer than three updates
// have been seen it returns the midpoint and leaves the interval alone.
func (k *mbController) bSLA(c *mbConfig) int {
	if k.tauAvg == 0 || k.updates < mbWarmupUpdates {
		return (k.bLow + k.bHigh) / 2
	}
	hi := (c.DSLA + c.EpsD).Seconds()
	lo := (c.DSLA - c.EpsD).Seconds()
	bAvg := int(math.Floor(k.bAvg))
	switch {
	case k.tauAvg > hi: // case 1: too slow, shrink to the left
		newHigh := max(bAvg, k.bLow+mbAlpha)
		newLow := max(k.bLow-mbDelta, c.BMin)
		k.bHigh = min(k.bHigh, newHigh)
		k.bLow = newLow
	case k.tauAvg < lo: // case 2: comfortably fast, expand to the right
		newLow := min(bAvg, k.bHigh-mbAlpha)
		newHigh := min(k.bHigh+mbDelta, c.BMax)
		k.bLow = max(k.bLow, newLow)
		k.bHigh = newHigh
	default: // case 3: within tolerance, centre on b_avg
		k.bHigh = min(bAvg+mbAlpha/2, c.BMax)
		k.bLow = max(bAvg-mbAlpha/2, c.BMin)
	}
	k.bLow = max(c.BMin, k.bLow)
	k.bHigh = min(c.BMax, k.bHigh)
	if k.bLow > k.bHigh {
		k.bLow = k.bHigh
	}
	b := (k.bLow + k.bHigh) / 2
	if k.nDecode > 0 {
		b = max(b, k.nDecode)
	}
	return clampInt(b, c.BMin, c.BMax)
}

// mbDone summarises one completed batch for Algorithm 7.
type mbDone struct {
	// size is |batch| for b_avg; avgPrompt and avgOutput are the members' mean
	// lengths in tokens; maxOutput is the longest output.
	size                 int
	avgPrompt, avgOutput float64
	maxOutput            int
	// decodeTBT is the measured mean decode TBT (0: not measured).
	decodeTBT time.Duration
	// service is the batch's dispatch-to-last-completion time.
	service time.Duration
	// nDecode is the number of requests still decoding on the backend.
	nDecode int
}

// update is Algorithm 7: EMA (factor 0.2) of the statistics, of τ_avg with
// the measured decode TBT (the v2 model) or, when none was measured,
// service time / longest output (the legacy model), and of b_avg.
func (k *mbController) update(s *mbStats, d mbDone) {
	if d.size == 0 {
		return
	}
	s.avgPrompt = mbEMA*d.avgPrompt + (1-mbEMA)*s.avgPrompt
	s.avgOutput = mbEMA*d.avgOutput + (1-mbEMA)*s.avgOutput
	recent := d.decodeTBT.Seconds()
	if d.decodeTBT <= 0 {
		recent = d.service.Seconds() / float64(max(1, d.maxOutput))
	}
	k.tauAvg = mbEMA*recent + (1-mbEMA)*k.tauAvg
	k.bAvg = mbEMA*float64(d.size) + (1-mbEMA)*k.bAvg
	k.nDecode = d.nDecode
	k.updates++
}
