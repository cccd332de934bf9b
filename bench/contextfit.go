package bench

import (
	"fmt"
	"math"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/traces"
)

// lengthCheck counts the Requests that need more tokens (prompt plus
// output, the max_tokens sent) than an in-process engine accepts.
type lengthCheck struct {
	// limit is the most tokens an engine accepts (engineLimit).
	limit int
	// total and over count the Requests seen and those above limit;
	// longest is the most tokens one needed.
	total, over, longest int
}

// engineLimit is the most prompt plus output tokens one request may need
// on an engine of cfg: its max_model_len, or its whole KV cache when
// smaller (the engine rejects either as too long).
func engineLimit(cfg engine.Config) int {
	return min(cfg.MaxModelLen, cfg.NumGPUBlocks*cfg.BlockSize)
}

// observe counts r.
func (c *lengthCheck) observe(r *traces.Request) {
	need := r.InputTokens + r.OutputTokens
	c.total++
	c.longest = max(c.longest, need)
	if need > c.limit {
		c.over++
	}
}

// reportTooLong says on rs.ErrOut how many Requests the in-process
// engines rejected as too long, and which preset or flag fits them.
func (rs Spec) reportTooLong(c *lengthCheck) {
	if c == nil || c.over == 0 || rs.ErrOut == nil {
		return
	}
	preset := rs.Preset
	if preset == "" {
		preset = "default"
	}
	fmt.Fprintf(rs.ErrOut, "tracebench: %d of %d requests (%.1f %%) need more than the mock engines' %d tokens "+
		"(prompt + max output; preset %s) and were rejected as too long; %s\n",
		c.over, c.total, 100*float64(c.over)/float64(c.total), c.limit, preset, fitHint(c.longest))
}

// fitHint names the built-in profile with the smallest limit that fits a
// request of longest tokens, or the Fleet fields that would. It names only
// profiles with the default latency model: the hint changes the engine's
// capacity, not its speed.
func fitHint(longest int) string {
	best, bestLimit := "", math.MaxInt
	for _, name := range profile.Names() {
		cfg, err := profile.BuiltinConfig(name)
		if l := engineLimit(cfg); err == nil && cfg.Latency == engine.DefaultLatency() && l >= longest && l < bestLimit {
			best, bestLimit = name, l
		}
	}
	if best != "" {
		return fmt.Sprintf("the longest needs %d: Spec.Preset %s (%d tokens) fits every one", longest, best, bestLimit)
	}
	bs := engine.DefaultConfig().BlockSize
	return fmt.Sprintf("the longest needs %d, more than any preset: set Spec.Fleet.MaxModelLen=%d and Spec.Fleet.NumGPUBlocks=%d (%d-token blocks)",
		longest, longest, (longest+bs-1)/bs, bs)
}
