package profile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// CachePagedPrefix is the shared paged prefix cache of vLLM and SGLang.
const CachePagedPrefix = engine.CachePagedPrefix

// CachePerSlot is llama.cpp server's per-slot prompt cache.
const CachePerSlot = engine.CachePerSlot

// fieldError is an out-of-range value of the field at path.
type fieldError struct{ path, msg string }

func (e *fieldError) Error() string { return e.path + ": " + e.msg }

// validate reports the first field out of range.
func (p *Profile) validate() error {
	bad := func(path string, v any, want string) error {
		return &fieldError{path, fmt.Sprintf("%v: want %s", v, want)}
	}
	e, l := p.Engine, p.Latency
	switch {
	case p.Name == "":
		return &fieldError{"name", "missing: want a name"}
	case !(p.CostPerHour >= 0) || math.IsInf(p.CostPerHour, 0):
		return bad("cost_per_hour", p.CostPerHour, "a price in $/hour, a number ≥ 0")
	case e.Cache != CachePagedPrefix && e.Cache != CachePerSlot:
		return bad("engine.cache", e.Cache, `"paged-prefix" or "per-slot"`)
	case !(e.SlotPromptSimilarity >= 0 && e.SlotPromptSimilarity <= 1):
		return bad("engine.slot_prompt_similarity", e.SlotPromptSimilarity, "in [0, 1]")
	case e.HostCacheTokens < 0:
		return bad("engine.host_cache_tokens", e.HostCacheTokens, "≥ 0")
	case e.Batching != "continuous" && e.Batching != "static":
		return bad("engine.batching", e.Batching, `"continuous" or "static"`)
	case e.MaxNumSeqs < 1:
		return bad("engine.max_num_seqs", e.MaxNumSeqs, "≥ 1")
	case e.MaxNumBatchedTokens < 1:
		return bad("engine.max_num_batched_tokens", e.MaxNumBatchedTokens, "≥ 1")
	case e.NumGPUBlocks < 1:
		return bad("engine.num_gpu_blocks", e.NumGPUBlocks, "≥ 1")
	case e.BlockSize < 1 || e.BlockSize > 1024:
		return bad("engine.block_size", e.BlockSize, "in [1, 1024]")
	case e.MaxModelLen < 2:
		return bad("engine.max_model_len", e.MaxModelLen, "≥ 2")
	case !(e.EOSProbability >= 0 && e.EOSProbability <= 1):
		return bad("engine.eos_probability", e.EOSProbability, "in [0, 1]")
	case !slices.Contains(engine.EvictionPolicies(), e.Eviction):
		return bad("engine.eviction", e.Eviction, strings.Join(engine.EvictionPolicies(), ", "))
	case e.LoRA.MaxLoras < 0:
		return bad("engine.lora.max_loras", e.LoRA.MaxLoras, "≥ 0")
	case e.LoRA.MaxCPULoras < 0:
		return bad("engine.lora.max_cpu_loras", e.LoRA.MaxCPULoras, "≥ 0")
	case e.LoRA.LoadCost < 0 || e.LoRA.DiskLoadCost < 0:
		return bad("engine.lora.load_cost", e.LoRA.LoadCost.D(), "≥ 0 (and disk_load_cost too)")
	case l.CStep < 0:
		return bad("latency.c_step", l.CStep.D(), "≥ 0")
	case l.CPrefill < 0:
		return bad("latency.c_prefill", l.CPrefill.D(), "≥ 0")
	case l.CDecode < 0:
		return bad("latency.c_decode", l.CDecode.D(), "≥ 0")
	case !(l.CAttendNs >= 0) || math.IsInf(l.CAttendNs, 0):
		return bad("latency.c_attend_ns", l.CAttendNs, "≥ 0")
	case !engine.BetaAllowed(l.Beta.D(), l.CDecode.D(), l.CStep.D(), l.Gamma):
		return bad("latency.beta", l.Beta.D(), "≥ 0, or below 0 with gamma 0 and beta + c_decode + c_step > 0 (a one-sequence step cheaper than the per-sequence cost)")
	case !(l.Gamma >= 0) || math.IsInf(l.Gamma, 0):
		return bad("latency.gamma", l.Gamma, "≥ 0")
	case l.RequestOverhead < 0:
		return bad("latency.request_overhead", l.RequestOverhead.D(), "≥ 0")
	case p.KVTransfer.Latency < 0:
		return bad("kv_transfer.latency", p.KVTransfer.Latency.D(), "≥ 0")
	case p.KVTransfer.PerToken < 0:
		return bad("kv_transfer.per_token", p.KVTransfer.PerToken.D(), "≥ 0")
	case !(l.Jitter >= 0 && l.Jitter <= 1):
		return bad("latency.jitter", l.Jitter, "in [0, 1]")
	case l.CStep == 0 && l.CPrefill == 0 && l.CDecode == 0 && l.Beta == 0:
		return &fieldError{"latency", "every cost is 0: want at least one of c_step, c_prefill, c_decode, beta > 0"}
	}
	if err := p.Reasoning.validate(); err != nil {
		return err
	}
	return p.LlamaCpp.validate(e.Cache)
}

// validate reports the first reasoning field out of range.
func (r Reasoning) validate() error {
	bad := func(path string, v any, want string) error {
		return &fieldError{path, fmt.Sprintf("%v: want %s", v, want)}
	}
	switch {
	case !(r.Share >= 0 && r.Share <= 1):
		return bad("reasoning.share", r.Share, "in [0, 1]")
	case r.Share > 0 && !(r.MeanTokens >= 1 && !math.IsInf(r.MeanTokens, 0)):
		return bad("reasoning.mean_tokens", r.MeanTokens, "≥ 1 when share is above 0")
	case !(r.CV >= 0 && r.CV <= 10):
		return bad("reasoning.cv", r.CV, "in [0, 10]")
	case r.MaxTokens < 0:
		return bad("reasoning.max_tokens", r.MaxTokens, "≥ 0")
	}
	return nil
}
