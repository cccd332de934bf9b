package profile

import (
	"fmt"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// LlamaCpp is the llama.cpp engine family's section: what llama-server's
// loop does beside the step model, each field with the server flag that
// changes it. It applies to the per-slot cache only; omitted, none of it
// is priced.
type LlamaCpp struct {
	// SaveFixed and SavePerToken price a slot-switch save of a slot's KV
	// to the host prompt cache (fixed + per token the slot held), run on
	// the engine loop before the next batch: every decoding request
	// waits. --cache-ram 0 removes it; -fa on makes it far cheaper.
	SaveFixed    Duration `yaml:"save_fixed"`
	SavePerToken Duration `yaml:"save_per_token"`
	// RestoreFixed and RestorePerToken price loading a saved prompt from
	// the host cache into a slot (fixed + per token restored).
	RestoreFixed    Duration `yaml:"restore_fixed"`
	RestorePerToken Duration `yaml:"restore_per_token"`
	// SplitKV is true for the default KV cache split per slot: each run
	// of consecutive busy slot ids decodes as its own ubatch. -kvu
	// (unified KV) makes it false.
	SplitKV bool `yaml:"split_kv"`
	// Ubatch is -ub, the most tokens of one ubatch (0: 512).
	Ubatch int `yaml:"ubatch,omitempty"`
	// HTTPWorkers is the server's HTTP threads (--threads-http; default
	// max(-np + 2, cores − 1)): requests beyond them wait outside the task
	// queue, unreported. 0: unlimited.
	HTTPWorkers int `yaml:"http_workers,omitempty"`
}

// config maps the section to the engine's (nil: none).
func (l *LlamaCpp) config() engine.LlamaCppConfig {
	if l == nil {
		return engine.LlamaCppConfig{}
	}
	return engine.LlamaCppConfig{
		SaveFixed: l.SaveFixed.D(), SavePerToken: l.SavePerToken.D(),
		RestoreFixed: l.RestoreFixed.D(), RestorePerToken: l.RestorePerToken.D(),
		SplitKV: l.SplitKV, UbatchSize: l.Ubatch, HTTPWorkers: l.HTTPWorkers,
	}
}

// llamaCppOf maps the engine's section back (nil when nothing is priced).
func llamaCppOf(c engine.LlamaCppConfig) *LlamaCpp {
	if c == (engine.LlamaCppConfig{}) {
		return nil
	}
	return &LlamaCpp{
		SaveFixed: Duration(c.SaveFixed), SavePerToken: Duration(c.SavePerToken),
		RestoreFixed: Duration(c.RestoreFixed), RestorePerToken: Duration(c.RestorePerToken),
		SplitKV: c.SplitKV, Ubatch: c.UbatchSize, HTTPWorkers: c.HTTPWorkers,
	}
}

// validate reports the first field of the section out of range.
func (l *LlamaCpp) validate(cache string) error {
	if l == nil {
		return nil
	}
	bad := func(path string, v any) error {
		return &fieldError{"llamacpp." + path, fmt.Sprintf("%v: want ≥ 0", v)}
	}
	switch {
	case cache != CachePerSlot:
		return &fieldError{"llamacpp", "given with engine.cache " + cache + `: the llama.cpp section needs engine.cache "per-slot"`}
	case l.SaveFixed < 0:
		return bad("save_fixed", l.SaveFixed.D())
	case l.SavePerToken < 0:
		return bad("save_per_token", l.SavePerToken.D())
	case l.RestoreFixed < 0:
		return bad("restore_fixed", l.RestoreFixed.D())
	case l.RestorePerToken < 0:
		return bad("restore_per_token", l.RestorePerToken.D())
	case l.Ubatch < 0:
		return bad("ubatch", l.Ubatch)
	case l.HTTPWorkers < 0:
		return bad("http_workers", l.HTTPWorkers)
	}
	return nil
}

// LlamaCppFamily reports whether the profile models a llama.cpp server:
// its cache is per-slot or it has a llamacpp section. Such a profile
// cannot describe a vLLM or SGLang server (a paged prefix cache shared
// by every request), and is refused against one.
func (p *Profile) LlamaCppFamily() bool {
	return p.Engine.Cache == CachePerSlot || p.LlamaCpp != nil
}
