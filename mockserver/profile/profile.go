package profile

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Profile is one engine profile. Every duration is written as a Go
// duration string ("5.74ms", "100us").
type Profile struct {
	// Name identifies the profile (the file name of a built-in one).
	Name string `yaml:"name"`
	// Description says in one line what the profile models.
	Description string `yaml:"description"`
	// Source cites where the figures come from.
	Source string `yaml:"source,omitempty"`
	// FittedOn says what the figures were measured or fitted on (model,
	// GPU, engine version, workload).
	FittedOn string `yaml:"fitted_on,omitempty"`
	// Notes records what the profile leaves out or approximates.
	Notes string `yaml:"notes,omitempty"`
	// CostPerHour is what one replica costs to keep, in dollars per hour
	// (0: not priced); reports price the mock and simulated fleets with
	// it unless --cost-per-hour is given.
	CostPerHour float64 `yaml:"cost_per_hour,omitempty"`
	// Engine holds the scheduler, KV cache and batching parameters.
	Engine Engine `yaml:"engine"`
	// Latency holds the per-step latency model.
	Latency Latency `yaml:"latency"`
	// LlamaCpp holds llama.cpp's server mechanisms (per-slot cache only;
	// nil: none priced).
	LlamaCpp *LlamaCpp `yaml:"llamacpp,omitempty"`
	// KVTransfer prices a decode instance's pull of a remote prefill's KV
	// cache (prefill/decode disaggregation).
	KVTransfer KVTransfer `yaml:"kv_transfer"`
	// Reasoning makes a share of requests reason before they answer, as
	// a reasoning model does (omitted: none reason).
	Reasoning Reasoning `yaml:"reasoning,omitempty"`
	// Fit, present in a profile written by `tracebench calibrate`, holds
	// the uncertainty of every fitted parameter and the fit's residuals.
	Fit *Fit `yaml:"fit,omitempty"`
	// Validation lists the prediction errors `tracebench predict --record`
	// measured with this profile against runs of the real fleet.
	Validation []Validation `yaml:"validation,omitempty"`
	// Agreement is the last rank agreement `tracebench predict DIR
	// --record` measured with this profile on a bench directory (nil:
	// none).
	Agreement *Agreement `yaml:"agreement,omitempty"`
}

// Agreement is how a simulation with the profile ordered the policies of
// a measured bench, against the measurement.
type Agreement struct {
	// Run names the bench directory; Policies and Seeds its size.
	Run      string `yaml:"run"`
	Policies int    `yaml:"policies"`
	Seeds    int    `yaml:"seeds"`
	// TauTTFTP50 and TauTTFTP90 are Kendall's τ of the policies' TTFT
	// p50 and p90, measured against predicted (−1 to 1; 0 when not
	// known).
	TauTTFTP50 float64 `yaml:"tau_ttft_p50"`
	TauTTFTP90 float64 `yaml:"tau_ttft_p90"`
	// SameVerdict reports that both verdicts picked the same policy.
	SameVerdict bool `yaml:"same_verdict"`
	// MaxHitErrPt is the largest server hit rate error over the
	// policies, in percentage points.
	MaxHitErrPt float64 `yaml:"max_hit_err_pt"`
}

// Validation is one prediction of a measured run: the errors, in percent
// ((predicted − measured) / measured), of its p50 figures.
type Validation struct {
	// Run names the measured results file.
	Run string `yaml:"run"`
	// TTFTP50, TPOTP50 and E2EP50 are the errors in percent.
	TTFTP50 float64 `yaml:"ttft_p50_err_pct"`
	TPOTP50 float64 `yaml:"tpot_p50_err_pct"`
	E2EP50  float64 `yaml:"e2e_p50_err_pct"`
}

// Engine holds the scheduler and KV cache parameters (vLLM's names).
type Engine struct {
	// Cache is the cache model: "paged-prefix", the shared paged prefix
	// cache of vLLM and SGLang, or "per-slot", llama.cpp server's slots
	// (max_num_seqs slots, each reusing the common prefix with its last
	// prompt and output).
	Cache string `yaml:"cache"`
	// SlotPromptSimilarity is llama.cpp's --slot-prompt-similarity for
	// the per-slot cache (default 0.1; 0: least recently used slot only).
	SlotPromptSimilarity float64 `yaml:"slot_prompt_similarity,omitempty"`
	// HostCacheTokens is the size in tokens of llama.cpp's host-memory
	// prompt cache (--cache-ram) for the per-slot cache (0: off).
	HostCacheTokens int `yaml:"host_cache_tokens,omitempty"`
	// Batching is "continuous" or "static".
	Batching string `yaml:"batching"`
	// MaxNumSeqs bounds the running batch.
	MaxNumSeqs int `yaml:"max_num_seqs"`
	// MaxNumBatchedTokens is the per-step token budget.
	MaxNumBatchedTokens int `yaml:"max_num_batched_tokens"`
	// NumGPUBlocks is the KV cache capacity in blocks.
	NumGPUBlocks int `yaml:"num_gpu_blocks"`
	// BlockSize is the number of tokens per KV block.
	BlockSize int `yaml:"block_size"`
	// MaxModelLen bounds prompt plus output tokens of one request.
	MaxModelLen int `yaml:"max_model_len"`
	// EOSProbability is the chance a generated token ends the output
	// (requests without ignore_eos); 0 runs outputs to max_tokens.
	EOSProbability float64 `yaml:"eos_probability"`
	// Eviction is the prefix cache's eviction policy: "lru" (vLLM V1's,
	// every built-in profile's), "lru-longest" or "lfu".
	Eviction string `yaml:"eviction"`
	// LoRA holds the adapter limits and load costs (omitted: no limits,
	// no costs).
	LoRA LoRA `yaml:"lora,omitempty"`
}

// LoRA is how the engine serves LoRA adapters (vLLM's --max-loras and
// --max-cpu-loras, plus the time to load an adapter).
type LoRA struct {
	// MaxLoras is the most distinct adapters in the running batch (0: no
	// limit).
	MaxLoras int `yaml:"max_loras"`
	// MaxCPULoras is the most adapters kept in host memory (0: max_loras).
	MaxCPULoras int `yaml:"max_cpu_loras"`
	// LoadCost is the step time added to load an adapter into a GPU slot.
	LoadCost Duration `yaml:"load_cost"`
	// DiskLoadCost is the extra time when the adapter is not in host
	// memory either.
	DiskLoadCost Duration `yaml:"disk_load_cost"`
}

// Latency is the step latency model
//
//	t = c_step + c_prefill·prefill_tokens + c_decode·b + β·(1 + γ·(b−1)/b)
//	    + c_attend·attended_keys
//
// times a log-normal jitter factor of mean 1 and coefficient of variation
// jitter, where b sequences get a token in the step.
type Latency struct {
	// CStep is the fixed cost of every step that runs work.
	CStep Duration `yaml:"c_step"`
	// CPrefill is the cost of each computed (not cached) prompt token.
	CPrefill Duration `yaml:"c_prefill"`
	// CDecode is the cost of each sequence that gets a token in the step
	// (a linear batch term, as in BLIS's blackbox model).
	CDecode Duration `yaml:"c_decode"`
	// Beta is β, the saturating decode step time of a batch of one. It
	// may be below 0 when Gamma is 0 and Beta + CDecode + CStep > 0 (a
	// one-sequence step cheaper than each sequence of a larger batch).
	Beta Duration `yaml:"beta"`
	// CAttendNs is the cost in nanoseconds of each key a computed token
	// attends to (a token at position p attends to p keys): attention's
	// growth with context, large on a CPU engine (default 0).
	CAttendNs float64 `yaml:"c_attend_ns"`
	// Gamma is γ, the relative growth of β from batch 1 to a large batch.
	Gamma float64 `yaml:"gamma"`
	// Jitter is the coefficient of variation of the step time, in [0, 1].
	Jitter float64 `yaml:"jitter"`
	// RequestOverhead is a fixed time each request spends outside the
	// engine (HTTP, tokenisation; BLIS's α₀): the mock holds requests this
	// long before the engine, the simulator delays what the client sees.
	RequestOverhead Duration `yaml:"request_overhead"`
}

// Fit records how a calibrated profile was fitted.
type Fit struct {
	// Runs names the results files fitted.
	Runs []string `yaml:"runs"`
	// Requests is the number of successful requests used.
	Requests int `yaml:"requests"`
	// Observations is the number of equations in the least-squares fit.
	Observations int `yaml:"observations"`
	// Params lists every latency parameter with its standard error.
	Params []FitParam `yaml:"params"`
	// Residuals summarises the fit's residuals per observation kind.
	Residuals []Residual `yaml:"residuals"`
	// Warnings are the parameters the data could not identify and what to
	// run instead.
	Warnings []string `yaml:"warnings,omitempty"`
}

// FitParam is one fitted parameter.
type FitParam struct {
	// Name is the latency field (c_step, c_prefill, c_decode, beta, gamma).
	Name string `yaml:"name"`
	// Value is the fitted value in Unit.
	Value float64 `yaml:"value"`
	// StdErr is the standard error of Value, in Unit.
	StdErr float64 `yaml:"stderr"`
	// Unit is "ms", "us" or "" (dimensionless).
	Unit string `yaml:"unit"`
	// Identified is false when the data could not determine the parameter
	// (it then keeps the value of the starting profile).
	Identified bool `yaml:"identified"`
}

// Residual summarises the residuals of one kind of observation.
type Residual struct {
	// Kind is "ttft" or "tbt".
	Kind string `yaml:"kind"`
	// N is the number of observations.
	N int `yaml:"equations"`
	// RMSMs is the root mean square residual in milliseconds.
	RMSMs float64 `yaml:"rms_ms"`
	// RelRMS is the RMS residual relative to the mean observation.
	RelRMS float64 `yaml:"rel_rms"`
}

// Duration is a time.Duration written in YAML as a Go duration string.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalYAML writes d as a duration string ("5.74ms").
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// UnmarshalYAML reads a duration string; a bare number is an error, since
// its unit would be a guess.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 5.74ms", n.Line)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q: want a duration such as 5.74ms or 100us", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Reasoning is the reasoning a model does before it answers: a share of
// requests spend their first output tokens on it, with log-normal
// lengths. Reasoning tokens are output tokens the engine decodes: they
// count against max_tokens, and the answer follows them.
type Reasoning struct {
	// Share is the fraction of requests that reason, in [0, 1].
	Share float64 `yaml:"share"`
	// MeanTokens is the mean reasoning length in tokens (≥ 1 when share
	// is above 0).
	MeanTokens float64 `yaml:"mean_tokens"`
	// CV is the coefficient of variation of the length, in [0, 10]
	// (0: every reasoning is mean_tokens long).
	CV float64 `yaml:"cv,omitempty"`
	// MaxTokens caps a reasoning's length in tokens (0: no cap).
	MaxTokens int `yaml:"max_tokens,omitempty"`
}

// KVTransfer is the cost of moving a prefill instance's KV cache to a
// decode instance: latency + per_token × transferred prompt tokens.
type KVTransfer struct {
	// Latency is the fixed cost of one transfer (default 1 ms, an
	// assumption: about two round trips in one data centre).
	Latency Duration `yaml:"latency"`
	// PerToken is the cost of each transferred token (default 10.5 µs:
	// 128 KiB of fp16 KV per token of an 8B Llama-class model over one
	// 100 Gb/s RDMA link at line rate).
	PerToken Duration `yaml:"per_token"`
}
