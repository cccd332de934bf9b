package calibrate

import (
	"fmt"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/replay"
)

// Cache model choices of Options.Cache.
const (
	// CacheAuto picks the cache model from the server that answered the
	// runs: per-slot for llama.cpp, the starting profile's otherwise.
	CacheAuto = "auto"
)

// llama.cpp server defaults (llama-server b7099 --help).
const (
	// llamaNBatch is the logical batch (-b, --batch-size): the most prompt
	// and decode tokens one llama_decode call of the server takes.
	llamaNBatch = 2048
	// llamaHostCacheTokens is the host prompt cache assumed when the run
	// cannot tell (--cache-ram 8192 MiB; its size in tokens depends on the
	// model's KV bytes per token, which the client cannot see).
	llamaHostCacheTokens = 1 << 20
)

// serverOf reads the header's config.server (what /v1/models and /props
// said), or else its llama.cpp dialect, into in.
func (in *Input) serverOf(cfg replay.RunConfig) {
	if d := cfg.Dialect; d == dialect.LlamaCpp && in.Server == "" {
		in.Server = d // the client's dialect, when the server said nothing
	}
	s := cfg.Server
	if s == nil {
		return
	}
	in.Server = s.OwnedBy
	if s.Slots > 0 {
		in.Slots = s.Slots
	}
	if s.SlotContext > 0 {
		in.SlotContext = s.SlotContext
	}
}

// startFor returns the profile the fit starts from for the cache model
// choice (CacheAuto, "" = auto, or a profile cache model): for llama.cpp,
// a per-slot cache with the server's slots and context per slot, its
// batch as the token budget and its default slot similarity and host
// prompt cache. The second result says what was chosen and why.
func startFor(start *profile.Profile, in *Input, choice string) (*profile.Profile, string, error) {
	switch choice {
	case "", CacheAuto:
		if in.Server != "llamacpp" {
			return start, "", nil
		}
	case profile.CachePagedPrefix:
		p := *start
		p.Engine.Cache = profile.CachePagedPrefix
		return &p, "", nil
	case profile.CachePerSlot:
	default:
		return nil, "", fmt.Errorf("calibrate: cache model %q: want auto, %s or %s", choice, profile.CachePagedPrefix, profile.CachePerSlot)
	}
	p := *start
	e := &p.Engine
	e.Cache, e.SlotPromptSimilarity, e.HostCacheTokens = profile.CachePerSlot, engine.DefaultSlotSimilarity, llamaHostCacheTokens
	e.MaxNumBatchedTokens, e.Eviction = llamaNBatch, engine.EvictLRU
	if in.Slots > 0 {
		e.MaxNumSeqs = in.Slots
	}
	if in.SlotContext > 0 {
		e.MaxModelLen = in.SlotContext
	}
	e.NumGPUBlocks = (e.MaxNumSeqs*e.MaxModelLen + e.BlockSize - 1) / e.BlockSize
	why := fmt.Sprintf("cache per-slot (%d slots of %d tokens, batch %d, slot similarity %g, host prompt cache %d tokens assumed)",
		e.MaxNumSeqs, e.MaxModelLen, llamaNBatch, engine.DefaultSlotSimilarity, llamaHostCacheTokens)
	if in.Server == "llamacpp" {
		why = "the runs were served by llama.cpp: " + why
	}
	return &p, why, nil
}
