package profile

import "github.com/tracebench/tracebench/mockserver/engine"

// This file is the one place that maps profile fields to engine.Config
// fields and back: a new engine parameter gets its profile field here and
// in profile.go.

// Config returns the engine configuration the profile describes (seed 1;
// the caller sets Seed and OutputVocab).
func (p *Profile) Config() engine.Config {
	e, l := p.Engine, p.Latency
	return engine.Config{
		BlockSize:           e.BlockSize,
		NumGPUBlocks:        e.NumGPUBlocks,
		MaxNumSeqs:          e.MaxNumSeqs,
		MaxNumBatchedTokens: e.MaxNumBatchedTokens,
		MaxModelLen:         e.MaxModelLen,
		Batching:            e.Batching,
		EOSProbability:      e.EOSProbability,
		Eviction:            e.Eviction,
		Cache:               cacheModel(e.Cache),
		SlotSimilarity:      e.SlotPromptSimilarity,
		HostCacheTokens:     e.HostCacheTokens,
		LlamaCpp:            p.LlamaCpp.config(),
		LoRA: engine.LoRAConfig{
			MaxLoras:     e.LoRA.MaxLoras,
			MaxCPULoras:  e.LoRA.MaxCPULoras,
			LoadCost:     e.LoRA.LoadCost.D(),
			DiskLoadCost: e.LoRA.DiskLoadCost.D(),
		},
		RequestOverhead: l.RequestOverhead.D(),
		KVTransfer:      engine.KVTransferConfig{Latency: p.KVTransfer.Latency.D(), PerToken: p.KVTransfer.PerToken.D()},
		Reasoning: engine.ReasoningConfig{Share: p.Reasoning.Share, MeanTokens: p.Reasoning.MeanTokens,
			CV: p.Reasoning.CV, MaxTokens: p.Reasoning.MaxTokens},
		Latency: engine.LatencyModel{
			StepOverhead:    l.CStep.D(),
			PrefillPerToken: l.CPrefill.D(),
			DecodePerToken:  l.CDecode.D(),
			AttendPerKey:    l.CAttendNs,
			Beta:            l.Beta.D(),
			Gamma:           l.Gamma,
			Jitter:          l.Jitter,
		},
		Seed: 1,
	}
}

// FromConfig returns a profile holding cfg's parameters under name.
func FromConfig(name string, cfg engine.Config) *Profile {
	l := cfg.Latency
	if cfg.Eviction == "" {
		cfg.Eviction = engine.EvictLRULongest // what the engine runs for ""
	}
	if cfg.Cache == "" {
		cfg.Cache = CachePagedPrefix
	}
	return &Profile{
		Name: name,
		Engine: Engine{
			Cache:                cfg.Cache,
			SlotPromptSimilarity: cfg.SlotSimilarity,
			HostCacheTokens:      cfg.HostCacheTokens,
			Batching:             cfg.Batching,
			MaxNumSeqs:           cfg.MaxNumSeqs,
			MaxNumBatchedTokens:  cfg.MaxNumBatchedTokens,
			NumGPUBlocks:         cfg.NumGPUBlocks,
			BlockSize:            cfg.BlockSize,
			MaxModelLen:          cfg.MaxModelLen,
			EOSProbability:       cfg.EOSProbability,
			Eviction:             cfg.Eviction,
			LoRA: LoRA{
				MaxLoras:     cfg.LoRA.MaxLoras,
				MaxCPULoras:  cfg.LoRA.MaxCPULoras,
				LoadCost:     Duration(cfg.LoRA.LoadCost),
				DiskLoadCost: Duration(cfg.LoRA.DiskLoadCost),
			},
		},
		Latency: Latency{
			CStep:     Duration(l.StepOverhead),
			CPrefill:  Duration(l.PrefillPerToken),
			CDecode:   Duration(l.DecodePerToken),
			CAttendNs: l.AttendPerKey,
			Beta:      Duration(l.Beta),
			Gamma:     l.Gamma,
			Jitter:    l.Jitter,

			RequestOverhead: Duration(cfg.RequestOverhead),
		},
		KVTransfer: KVTransfer{Latency: Duration(cfg.KVTransfer.Latency), PerToken: Duration(cfg.KVTransfer.PerToken)},
		LlamaCpp:   llamaCppOf(cfg.LlamaCpp),
		Reasoning: Reasoning{Share: cfg.Reasoning.Share, MeanTokens: cfg.Reasoning.MeanTokens,
			CV: cfg.Reasoning.CV, MaxTokens: cfg.Reasoning.MaxTokens},
	}
}

// cacheModel maps a profile's cache model to Config.Cache, where "" is
// the paged prefix cache (as in every preset).
func cacheModel(c string) string {
	if c == CachePagedPrefix {
		return ""
	}
	return c
}
