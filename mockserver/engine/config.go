package engine

import (
	"cmp"
	"fmt"
	"time"
)

// Batching modes of Config.Batching.
const (
	// Continuous is iteration-level batching: requests join and leave the
	// running batch at every step (vLLM).
	Continuous = "continuous"
	// Static runs a batch until its longest member finishes; nothing joins
	// a running batch (the multi-bin paper's setting).
	Static = "static"
)

// Config configures an Engine. The zero value is not valid; start from
// DefaultConfig or Preset.
type Config struct {
	// BlockSize is the number of tokens per KV cache block (default 16,
	// vLLM's default block size on GPUs).
	BlockSize int
	// NumGPUBlocks is the KV cache capacity in blocks (default 16384 =
	// 262,144 tokens: 32 GiB of fp16 KV cache for an 8B Llama-class model
	// at 128 KiB per token, 32 layers × 8 KV heads × 128 dims × 2 × 2 B).
	NumGPUBlocks int
	// MaxNumSeqs bounds the running batch (default 256, vLLM V1's default
	// for the OpenAI server on GPUs other than ≥70 GiB non-A100 ones;
	// vllm/engine/arg_utils.py).
	MaxNumSeqs int
	// MaxNumBatchedTokens is the per-step token budget shared by prefill
	// chunks and decode tokens (default 2048, vLLM V1's OpenAI-server
	// default with chunked prefill on the same GPUs; 8192 on H100-class).
	MaxNumBatchedTokens int
	// MaxModelLen bounds prompt plus output tokens of one request (default
	// 8192, Llama 3 8B's context). Longer requests are rejected by Add.
	MaxModelLen int
	// Batching is Continuous (default) or Static.
	Batching string
	// Latency maps a step's work to its duration.
	Latency LatencyModel
	// EOSProbability is the chance that a generated token is end-of-
	// sequence, for requests without IgnoreEOS once MinTokens are out
	// (default 0: outputs run to MaxTokens, like a trace replay with
	// ignore_eos). Draws are a hash of Seed, request ID and token index,
	// so they do not depend on scheduling.
	EOSProbability float64
	// OutputVocab, when set, lists the token ids generated tokens are drawn
	// from (a server sets it to the ids of the words it prints, so text
	// sent back in a later turn tokenises to the same ids). Empty: ids are
	// drawn uniformly from [0, VocabSize).
	OutputVocab []int
	// Seed seeds the latency jitter and generated tokens (default 1).
	Seed int64
	// Eviction is the prefix cache's eviction policy: EvictLRU (vLLM V1's,
	// the default of every preset), EvictLRULongest (also when empty) or
	// EvictLFU; see eviction.go.
	Eviction string
	// LoRA sets the adapter limits and load costs (zero: no limits, no
	// costs); see lora.go.
	LoRA LoRAConfig
	// RequestOverhead is a fixed time every request spends outside the
	// engine (HTTP, tokenisation, detokenisation; BLIS's α₀), default 0.
	// The engine itself ignores it: the mock server holds each request
	// this long before it reaches the engine, and the simulator adds it
	// to every time the client sees.
	RequestOverhead time.Duration
	// Cache is the cache model: CachePagedPrefix (also when empty) or
	// CachePerSlot (llama.cpp: MaxNumSeqs slots, see slotcache.go).
	Cache string
	// SlotSimilarity is llama.cpp's --slot-prompt-similarity for
	// CachePerSlot: a free slot is chosen by common prefix when it covers
	// more than this share of the prompt (llama.cpp's default 0.10 is
	// DefaultSlotSimilarity; 0 picks the least recently used slot only).
	SlotSimilarity float64
	// KVTransfer prices the pull of a remote prefill's KV cache by a
	// decode instance (prefill/decode disaggregation); see KVTransferConfig.
	KVTransfer KVTransferConfig
	// HostCacheTokens is the size in tokens of llama.cpp's host-memory
	// prompt cache (--cache-ram) for CachePerSlot; 0 (the default) turns
	// it off.
	HostCacheTokens int
	// LlamaCpp prices llama.cpp's server loop for CachePerSlot: slot
	// saves and restores, ubatches of a split KV cache, HTTP workers (zero
	// value: none priced); see llamacpp.go.
	LlamaCpp LlamaCppConfig
	// WarmSlots, for CachePerSlot, is the slots' and host cache's state
	// the engine starts from (nil, the default: empty slots), as left by
	// an earlier run on the same server; see SlotState.
	WarmSlots *SlotState
	// Reasoning makes a share of requests reason before they answer
	// (zero value: none do); see reasoning.go.
	Reasoning ReasoningConfig
}

// VocabSize is the vocabulary assumed for generated token ids (100,256,
// tiktoken cl100k_base).
const VocabSize = 100256

// DefaultConfig returns the engine of the "default" profile: vLLM V1 scheduler defaults
// and the decode latency model of the multi-bin batching specification
// (see DefaultLatency).
func DefaultConfig() Config {
	return Config{
		BlockSize:           16,
		NumGPUBlocks:        16384,
		MaxNumSeqs:          256,
		MaxNumBatchedTokens: 2048,
		MaxModelLen:         8192,
		Batching:            Continuous,
		Latency:             DefaultLatency(),
		Seed:                1,
		Eviction:            EvictLRU,
		KVTransfer:          DefaultKVTransfer(),
	}
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	if err := cmp.Or(
		atLeast(engineConfig, "BlockSize", c.BlockSize, 1),
		atLeast(engineConfig, "NumGPUBlocks", c.NumGPUBlocks, 1),
		atLeast(engineConfig, "MaxNumSeqs", c.MaxNumSeqs, 1),
		atLeast(engineConfig, "MaxNumBatchedTokens", c.MaxNumBatchedTokens, 1),
		atLeast(engineConfig, "MaxModelLen", c.MaxModelLen, 2),
		oneOf(engineConfig, "Batching", c.Batching, Continuous, Static),
		atLeast(engineConfig, "RequestOverhead", c.RequestOverhead, 0),
		c.validateCache(),
		inUnit(engineConfig, "SlotSimilarity", c.SlotSimilarity),
		atLeast(engineConfig, "HostCacheTokens", c.HostCacheTokens, 0),
		atLeast(engineConfig, "KVTransfer.Latency", c.KVTransfer.Latency, 0),
		atLeast(engineConfig, "KVTransfer.PerToken", c.KVTransfer.PerToken, 0),
	); err != nil {
		return err
	}
	if c.EOSProbability < 0 || c.EOSProbability > 1 {
		return fmt.Errorf("engine config: EOSProbability %g: want in [0, 1]", c.EOSProbability)
	}
	if err := c.LlamaCpp.validate(); err != nil {
		return err
	}
	if c.WarmSlots != nil {
		if c.Cache != CachePerSlot {
			return fmt.Errorf("engine config: WarmSlots set with cache %q: they belong to the per-slot cache", c.Cache)
		}
		if err := c.WarmSlots.validate(c.MaxNumSeqs); err != nil {
			return err
		}
	}
	if c.LlamaCpp.active() && c.Cache != CachePerSlot {
		return fmt.Errorf("engine config: LlamaCpp mechanisms set with cache %q: they belong to the per-slot cache", c.Cache)
	}
	if _, err := evictionPolicy(c.Eviction); err != nil {
		return err
	}
	if err := c.LoRA.validate(); err != nil {
		return err
	}
	if err := c.Reasoning.validate(); err != nil {
		return err
	}
	for i, id := range c.OutputVocab {
		if id < 0 || id >= VocabSize {
			return fmt.Errorf("engine config: OutputVocab[%d] = %d: want in [0, %d)", i, id, VocabSize)
		}
	}
	return c.Latency.Validate()
}

// validateCache reports an unknown Cache ("" is the paged prefix cache).
func (c Config) validateCache() error {
	if c.Cache == "" {
		return nil
	}
	return oneOf(engineConfig, "Cache", c.Cache, CachePagedPrefix, CachePerSlot)
}

// blocksFor returns the number of blocks that hold n tokens.
func (c Config) blocksFor(n int) int { return (n + c.BlockSize - 1) / c.BlockSize }

// stepFloor is the smallest duration a step that emits tokens may take,
// so a zero-cost latency model cannot make the real-time driver spin.
const stepFloor = time.Microsecond
