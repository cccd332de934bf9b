// Package steplat is the step latency formula of the engine model: the
// one the mock engine and the simulator charge for each step and the one
// calibrate fits to measured requests.
//
//	t = c_step + c_prefill·prefill + c_decode·b + β·(1 + γ·(b−1)/b) + c_attend·keys
//
// prefill is the number of prompt tokens computed in the step, b the
// number of sequences that get a token (the β term is absent when b = 0)
// and keys the number of keys the computed tokens attend to.
package steplat

// Coef are the formula's coefficients. Step, Prefill, Decode and Beta
// are times in one unit the caller chooses (the engine: nanoseconds; the
// fit: seconds), Prefill and Decode per token, Attend per attended key in
// that unit; Gamma is dimensionless. The zero value charges nothing.
type Coef struct {
	// Step is c_step, a fixed time of every step.
	Step float64
	// Prefill is c_prefill, the time per computed prompt token.
	Prefill float64
	// Decode is c_decode, the time per sequence that gets a token.
	Decode float64
	// Beta is β, the decode time of a batch of one.
	Beta float64
	// Gamma is γ, the relative growth of β's term from a batch of one to
	// a large batch.
	Gamma float64
	// Attend is c_attend, the time per key a computed token attends to.
	Attend float64
}

// Growth is (b−1)/b, the share of γ a batch of b ≥ 1 pays: 0 for one
// sequence, towards 1 for large batches.
func Growth(b float64) float64 { return (b - 1) / b }

// Fixed returns c_step + c_prefill·prefill: the step's time before its
// decoding batch and its attention.
func (c Coef) Fixed(prefill float64) float64 { return c.Step + c.Prefill*prefill }

// AddBatch returns t plus the time of a batch of b sequences getting a
// token: c_decode·b + β·(1 + γ·Growth(b)), the β term only when b > 0.
func (c Coef) AddBatch(t, b float64) float64 {
	t += c.Decode * b
	if b > 0 {
		t += c.Beta * (1 + c.Gamma*Growth(b))
	}
	return t
}

// Mean returns the step's time without the attention term:
// Fixed(prefill) then AddBatch(b).
func (c Coef) Mean(prefill, b float64) float64 { return c.AddBatch(c.Fixed(prefill), b) }

// Attention returns c_attend·keys, the attention term.
func (c Coef) Attention(keys float64) float64 { return c.Attend * keys }
