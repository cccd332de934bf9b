package calibrate

import (
	"fmt"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/results"
)

// Cache model choices of Options.Cache.
const (
	// CacheAuto picks the cache model from the server that answered the
	// runs: per-slot for llama.cpp, the starting profile's otherwise.
	CacheAuto = "auto"
)

// serverOf reads the header's config.server (what the server said of
// itself), or else its dialect when that one keeps slots, into in.
func (in *Input) serverOf(cfg results.RunConfig) {
	if d, err := dialect.Lookup(cfg.Dialect); err == nil && d.Slots() != nil && in.Server == "" {
		in.Server = d.Name // the client's dialect, when the server said nothing
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
// choice (CacheAuto, "" = auto, or a profile cache model): for a server
// that keeps one prompt per slot (its dialect's Slots, llama.cpp's), a
// per-slot cache with the server's slots and context per slot, its
// batch as the token budget and its default slot similarity and host
// prompt cache. The second result says what was chosen and why.
func startFor(start *profile.Profile, in *Input, choice string, hostTokens int) (*profile.Profile, string, error) {
	served := slotsOf(in.Server)
	switch choice {
	case "", CacheAuto:
		if served == nil && start.LlamaCppFamily() && pagedServer(in.Server) {
			return nil, "", fmt.Errorf("calibrate: CalibrateOptions.Start %s is a llama.cpp-family profile (cache %s%s), but the runs were served by %s, "+
				"whose paged prefix cache it cannot describe: start from a vLLM-family profile (CalibrateOptions.Start %s) or set CalibrateOptions.Cache %s",
				start.Name, start.Engine.Cache, llamaSection(start), in.Server, profile.DefaultName, profile.CachePagedPrefix)
		}
		if served == nil {
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
	sl := served
	if sl == nil {
		sl = slotsOf(dialect.LlamaCpp) // the per-slot server whose defaults are known
	}
	p := *start
	e := &p.Engine
	e.Cache, e.SlotPromptSimilarity, e.HostCacheTokens = profile.CachePerSlot, engine.DefaultSlotSimilarity, sl.HostCacheTokens
	e.MaxNumBatchedTokens, e.Eviction = sl.Batch, engine.EvictLRU
	assumed := "assumed"
	if hostTokens > 0 {
		e.HostCacheTokens, assumed = hostTokens, "given"
	}
	if in.Slots > 0 {
		e.MaxNumSeqs = in.Slots
	}
	if in.SlotContext > 0 {
		e.MaxModelLen = in.SlotContext
	}
	e.NumGPUBlocks = (e.MaxNumSeqs*e.MaxModelLen + e.BlockSize - 1) / e.BlockSize
	why := fmt.Sprintf("cache per-slot (%d slots of %d tokens, batch %d, slot similarity %g, host prompt cache %d tokens %s)",
		e.MaxNumSeqs, e.MaxModelLen, sl.Batch, engine.DefaultSlotSimilarity, e.HostCacheTokens, assumed)
	if served != nil {
		why = "the runs were served by " + in.Server + ": " + why
	}
	return &p, why, nil
}

// slotsOf is the per-slot facts of the server named (a dialect name, as
// /v1/models' owned_by gives it), nil when it is no per-slot server.
func slotsOf(server string) *dialect.SlotServer {
	d, err := dialect.Lookup(server)
	if err != nil {
		return nil
	}
	return d.Slots()
}

// pagedServer reports whether the server named (a dialect name) keeps a
// paged prefix cache shared by every request: vLLM's and SGLang's.
func pagedServer(server string) bool {
	return server == dialect.VLLM || server == dialect.SGLang
}

// llamaSection names the profile's llamacpp section when it has one.
func llamaSection(p *profile.Profile) string {
	if p.LlamaCpp != nil {
		return ", a llamacpp section"
	}
	return ""
}
