package engine

import (
	"fmt"
	"math"
)

// ReasoningConfig makes a share of requests reason before they answer,
// as reasoning models (DeepSeek-R1, Qwen3 in thinking mode) do: the
// first tokens such a request generates are its reasoning, the rest its
// answer. Reasoning tokens are ordinary output tokens to the engine:
// they are decoded, hold KV blocks and count against MaxTokens, so a
// request that reasons for MaxTokens or more never answers (its whole
// output is reasoning), as on a real server whose max_tokens ends the
// thought. The zero value reasons for no request.
type ReasoningConfig struct {
	// Share is the fraction of requests that reason, in [0, 1]
	// (default 0).
	Share float64
	// MeanTokens is the mean length of a reasoning, in tokens (> 0 when
	// Share > 0).
	MeanTokens float64
	// CV is the coefficient of variation of the reasoning length: the
	// lengths are log-normal with mean MeanTokens and this CV, in
	// [0, 10] (0: every reasoning is MeanTokens long).
	CV float64
	// MaxTokens caps a reasoning's length in tokens (0: no cap beyond
	// the request's MaxTokens).
	MaxTokens int
}

// Active reports whether some requests reason.
func (r ReasoningConfig) Active() bool { return r.Share > 0 }

// validate reports the first field out of range.
func (r ReasoningConfig) validate() error {
	if err := inUnit(engineConfig, "Reasoning.Share", r.Share); err != nil {
		return err
	}
	switch {
	case r.Share > 0 && !(r.MeanTokens >= 1) || math.IsInf(r.MeanTokens, 0):
		return fmt.Errorf("engine config: Reasoning.MeanTokens %g: want ≥ 1 when Share > 0", r.MeanTokens)
	case !(r.CV >= 0 && r.CV <= 10):
		return fmt.Errorf("engine config: Reasoning.CV %g: want in [0, 10]", r.CV)
	}
	return atLeast(engineConfig, "Reasoning.MaxTokens", r.MaxTokens, 0)
}

// Draw salts of a request's reasoning: whether it reasons, then the two
// uniforms of its log-normal length. They are apart from the token and
// end-of-sequence draws (seq.draw), which take the indices 0, 1, 2, …
const (
	saltReasons = 0x7265617330 + iota
	saltLengthU
	saltLengthV
)

// Tokens returns how many of the first output tokens of a request with
// token seed seed are reasoning (0: it does not reason). It depends only
// on the configuration and the seed, never on scheduling.
func (r ReasoningConfig) Tokens(seed uint64) int {
	if !r.Active() || unit(mix64(seed^saltReasons)) >= r.Share {
		return 0
	}
	n := r.MeanTokens
	if r.CV > 0 {
		s2 := math.Log1p(r.CV * r.CV)
		mu, sigma := math.Log(r.MeanTokens)-s2/2, math.Sqrt(s2)
		// Box–Muller from two uniforms in (0, 1].
		u := 1 - unit(mix64(seed^saltLengthU))
		v := unit(mix64(seed ^ saltLengthV))
		z := math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
		n = math.Exp(mu + sigma*z)
	}
	out := max(1, int(math.Round(min(n, 1<<30))))
	if r.MaxTokens > 0 {
		out = min(out, r.MaxTokens)
	}
	return out
}

// unit maps a 64-bit draw to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }
