package engine

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/internal/steplat"
)

// LatencyModel gives the duration of one engine step, by the formula of
// internal/steplat:
//
//	t = StepOverhead + PrefillPerToken·prefill_tokens + DecodePerToken·b
//	    + Beta·(1 + Gamma·(b−1)/b) + AttendPerKey·attended_keys
//
// where b ≥ 1 sequences emit a token in the step (the Beta term is absent
// when b = 0), then multiplied by a seeded log-normal jitter factor of mean
// 1 and coefficient of variation Jitter. The decode term is the calibrated
// decode TBT model of the multi-bin batching specification the multi-bin
// queue follows (β = 5.74 ms, γ = 0.316; Mean(0, b) gives it per batch
// size b); the queue measures the decode TBT rather than computing it.
type LatencyModel struct {
	// StepOverhead is c_step, a fixed cost of every step that runs work
	// (default 0: the calibrated β already includes per-step overhead).
	StepOverhead time.Duration
	// PrefillPerToken is c_prefill, the cost of each prompt token computed
	// (cache hits are not computed). Default 100 µs, about 10k prefill
	// tokens/s for an 8B model on one A100; an assumption, not a published figure.
	PrefillPerToken time.Duration
	// DecodePerToken is c_decode, the cost of each sequence that gets a
	// token in the step: a batch term linear in b, as in the BLIS
	// simulator's blackbox step model (default 0).
	DecodePerToken time.Duration
	// Beta is β, the decode step time of a batch of one (default 5.74 ms,
	// the multi-bin specification's). It may be below 0 when Gamma is 0 and
	// Beta + DecodePerToken + StepOverhead > 0: the step is then linear
	// in b with a batch of one cheaper than each sequence of a larger
	// batch, as on llama.cpp's CPU backend (1.0 ms at batch 1, about
	// 1.3–1.6 ms per sequence from batch 2).
	Beta time.Duration
	// AttendPerKey is c_attend in nanoseconds: the cost of each key a
	// computed token attends to (a token at position p attends to p keys),
	// the attention cost that grows with context; default 0 (GPU decode
	// profiles fold it into β). Needed where attention is a large share of
	// a step, as on a CPU engine.
	AttendPerKey float64
	// Gamma is γ, the relative growth of the decode step from batch 1 to a
	// large batch (default 0.316, the multi-bin specification's).
	Gamma float64
	// Jitter is the coefficient of variation of the per-step log-normal
	// factor (default 0.05; 0 disables jitter).
	Jitter float64
}

// DefaultLatency returns the default model: β 5.74 ms, γ 0.316 (the multi-bin
// queue's decode model), 100 µs per prefill token, no step overhead, 5 % jitter.
func DefaultLatency() LatencyModel {
	return LatencyModel{
		PrefillPerToken: 100 * time.Microsecond,
		Beta:            5740 * time.Microsecond,
		Gamma:           0.316,
		Jitter:          0.05,
	}
}

// LinearLatency returns the multi-bin paper's linear token-time model: a
// constant β = 5.74 ms per step that emits tokens, whatever the batch,
// and no prefill cost or jitter.
func LinearLatency() LatencyModel {
	return LatencyModel{Beta: 5740 * time.Microsecond}
}

// Scaled returns the model with every time multiplied by f.
func (m LatencyModel) Scaled(f float64) LatencyModel {
	s := func(d time.Duration) time.Duration { return time.Duration(float64(d) * f) }
	m.StepOverhead, m.PrefillPerToken, m.Beta = s(m.StepOverhead), s(m.PrefillPerToken), s(m.Beta)
	m.DecodePerToken = s(m.DecodePerToken)
	m.AttendPerKey *= f
	return m
}

// Validate reports the first invalid field.
func (m LatencyModel) Validate() error {
	if err := cmp.Or(
		atLeast(latencyModel, "StepOverhead", m.StepOverhead, 0),
		atLeast(latencyModel, "PrefillPerToken", m.PrefillPerToken, 0),
		atLeast(latencyModel, "DecodePerToken", m.DecodePerToken, 0),
	); err != nil {
		return err
	}
	switch {
	case !BetaAllowed(m.Beta, m.DecodePerToken, m.StepOverhead, m.Gamma):
		return fmt.Errorf("latency model: Beta %v: want ≥ 0, or below 0 with Gamma 0 and Beta + DecodePerToken + StepOverhead > 0", m.Beta)
	case !(m.AttendPerKey >= 0) || math.IsInf(m.AttendPerKey, 0):
		return fmt.Errorf("latency model: AttendPerKey %g: want ≥ 0", m.AttendPerKey)
	case m.Gamma < 0 || math.IsNaN(m.Gamma):
		return fmt.Errorf("latency model: Gamma %g: want ≥ 0", m.Gamma)
	}
	return inUnit(latencyModel, "Jitter", m.Jitter)
}

// BetaAllowed reports whether β may take this value beside the other
// step terms: β ≥ 0, or β below 0 with γ 0 and β + cDecode + cStep > 0,
// so that the step stays positive and grows with the batch.
func BetaAllowed(beta, cDecode, cStep time.Duration, gamma float64) bool {
	return beta >= 0 || (gamma == 0 && beta+cDecode+cStep > 0)
}

// coef is the model as the shared step formula's coefficients, in
// nanoseconds.
func (m LatencyModel) coef() steplat.Coef {
	return steplat.Coef{Step: float64(m.StepOverhead), Prefill: float64(m.PrefillPerToken),
		Decode: float64(m.DecodePerToken), Beta: float64(m.Beta), Gamma: m.Gamma, Attend: m.AttendPerKey}
}

// Mean returns the expected step duration (jitter has mean 1) for
// prefill computed prompt tokens and b sequences emitting a token.
func (m LatencyModel) Mean(prefill, b int) time.Duration {
	return time.Duration(math.Round(m.coef().Mean(float64(prefill), float64(b))))
}

// addBatch adds to t (ns) the cost of b sequences getting a token in one
// batch: c_decode·b + β·(1 + γ(b−1)/b), the β term only when b > 0.
func (m LatencyModel) addBatch(t float64, b int) float64 { return m.coef().AddBatch(t, float64(b)) }

// MeanWith is Mean plus the attention term for keys attended keys.
func (m LatencyModel) MeanWith(prefill, b int, keys int64) time.Duration {
	return m.Mean(prefill, b) + time.Duration(math.Round(m.coef().Attention(float64(keys))))
}

// sample draws a step duration with jitter from rng.
func (m LatencyModel) sample(rng *rand.Rand, prefill, b int, keys int64) time.Duration {
	return m.jitter().sample(m, rng, prefill, b, keys)
}

// jitter is the log-normal jitter factor's parameters, fixed by the model:
// an engine computes them once instead of per step.
type jitter struct {
	sigma, mu float64
}

// jitter returns the parameters of a factor with E = 1 and CV = Jitter:
// σ² = ln(1 + CV²), μ = −σ²/2.
func (m LatencyModel) jitter() jitter {
	s2 := math.Log1p(m.Jitter * m.Jitter)
	return jitter{sigma: math.Sqrt(s2), mu: s2 / 2}
}

// sample draws a step duration of m, whose jitter parameters j are, with
// jitter from rng.
func (j jitter) sample(m LatencyModel, rng *rand.Rand, prefill, b int, keys int64) time.Duration {
	return j.scale(m.Jitter, rng, m.MeanWith(prefill, b, keys))
}

// scale multiplies mean by a jitter factor drawn from rng (none when cv,
// the model's Jitter, is 0).
func (j jitter) scale(cv float64, rng *rand.Rand, mean time.Duration) time.Duration {
	if cv == 0 || mean == 0 {
		return mean
	}
	f := math.Exp(j.sigma*rng.NormFloat64() - j.mu)
	return time.Duration(float64(mean) * f)
}
