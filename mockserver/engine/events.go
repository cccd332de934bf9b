package engine

import "time"

// FinishReason says why a request finished, with vLLM's names.
type FinishReason string

// Finish reasons.
const (
	// FinishLength: MaxTokens were generated.
	FinishLength FinishReason = "length"
	// FinishStop: an end-of-sequence token was generated.
	FinishStop FinishReason = "stop"
	// FinishAbort: the request was aborted (a client disconnect).
	FinishAbort FinishReason = "abort"
)

// Event is what one step did to one request. All of it becomes visible at
// the end of the step, Step.Start + Step.Duration.
type Event struct {
	// ID is the request's ID.
	ID string
	// Tag is the request's Request.Tag.
	Tag int64
	// Admitted is set in the step that first scheduled the request; then
	// CachedTokens is known and Start − arrival is its queue time.
	Admitted bool
	// CachedTokens is the prompt tokens served from the prefix cache at
	// first admission (whole blocks, never the last prompt token); the
	// figure vLLM reports as usage.prompt_tokens_details.cached_tokens.
	CachedTokens int
	// QueueTime is the time from Add to first admission (with Admitted).
	QueueTime time.Duration
	// Token is the generated token id when HasToken.
	Token int
	// HasToken is set when the step generated a token for the request.
	HasToken bool
	// First is set with the request's first generated token.
	First bool
	// Reasoning is set when the token is part of the request's reasoning
	// (Config.Reasoning), which comes before its answer; ReasoningEnd
	// marks its last token (absent when MaxTokens ends the reasoning).
	Reasoning, ReasoningEnd bool
	// NumOutput is the request's generated tokens so far.
	NumOutput int
	// Preempted is set when the request lost its KV blocks this step and
	// went back to the waiting queue to be recomputed.
	Preempted bool
	// Finished is set in the request's last event; Reason says why.
	Finished bool
	// Reason is the finish reason when Finished.
	Reason FinishReason
	// Slot is the per-slot cache's slot (Config.Cache CachePerSlot, from
	// 0) that holds the request in an admission or token event; −1 under
	// the paged cache and in a preemption event.
	Slot int
	// SlotSaved is, in an admission event under the per-slot cache, the
	// tokens the slot-switch save copied to the host prompt cache when
	// the request took its slot (0: none): one save, priced by
	// Config.LlamaCpp.
	SlotSaved int
}

// Step is the outcome of one engine iteration.
type Step struct {
	// Start is the time the step began (the now given to Engine.Step).
	Start time.Duration
	// Duration is the step's run time from the latency model; 0 when the
	// step had no work.
	Duration time.Duration
	// PrefillTokens is the prompt (or recomputed) tokens computed.
	PrefillTokens int
	// DecodeSeqs is the sequences that generated a token (b of the
	// latency model).
	DecodeSeqs int
	// AttendedKeys is Σ over the tokens computed in the step of the
	// tokens each attends to (its position in its sequence, itself
	// included): the attention work of the step.
	AttendedKeys int64
	// Events lists the requests the step touched, in scheduling order.
	Events []Event
}

// End returns Start + Duration, when the step's events are emitted.
func (s Step) End() time.Duration { return s.Start + s.Duration }

// Stats is a snapshot of an engine's gauges and counters.
type Stats struct {
	// Running and Waiting are the requests in the batch and queued.
	Running, Waiting int
	// KVUsage is the fraction of KV blocks in use by requests, in [0, 1]
	// (vllm:kv_cache_usage_perc; cached blocks without users count free).
	KVUsage float64
	// UsedBlocks and CachedBlocks count blocks with users and cached
	// blocks without users; NumGPUBlocks is the capacity.
	UsedBlocks, CachedBlocks, NumGPUBlocks int
	// BlockSize is tokens per block.
	BlockSize int
	// PrefixQueries and PrefixHits count prompt tokens looked up in, and
	// served from, the prefix cache at first admission
	// (vllm:prefix_cache_queries_total, vllm:prefix_cache_hits_total).
	PrefixQueries, PrefixHits int64
	// RecomputeQueries and RecomputeHits count the same for re-admission
	// after preemption (not part of the vLLM counters above).
	RecomputeQueries, RecomputeHits int64
	// RemoteTokens counts prompt tokens whose KV arrived from a remote
	// prefill (Request.RemoteTokens) instead of being computed or found
	// in the local prefix cache.
	RemoteTokens int64
	// Preemptions counts recompute preemptions (vllm:num_preemptions_total).
	Preemptions int64
	// Evictions counts cached blocks evicted to make room.
	Evictions int64
	// PromptTokens counts prompt tokens of requests that got their first
	// token; GenerationTokens counts generated tokens.
	PromptTokens, GenerationTokens int64
	// ReasoningTokens counts the generated tokens that were reasoning
	// (part of GenerationTokens).
	ReasoningTokens int64
	// Finished counts finished requests by reason.
	Finished map[FinishReason]int64
	// Steps counts steps that ran work.
	Steps int64
	// SlotSaves and SlotRestores count llama.cpp slot-switch saves to and
	// restores from the host prompt cache (per-slot cache only).
	SlotSaves, SlotRestores int64
	// SlotSavedTokens counts the tokens those saves copied (the slots'
	// contexts when they switched prompts).
	SlotSavedTokens int64
	// LoRA describes the adapters (vllm:lora_requests_info).
	LoRA LoRAStats
}
