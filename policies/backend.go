package policies

import "time"

// Backend is a value snapshot of one model-server endpoint, built before
// each decision. Policies must not keep pointers into it.
type Backend struct {
	// Index is the Backend's position in the run's target list (0-based).
	Index int
	// ID is a stable name ("b0", "b1", ... or host:port).
	ID string
	// URL is the base URL (scheme://host:port).
	URL string
	// InFlight is the number of requests dispatched and not finished.
	InFlight int
	// InFlightTokens is the sum of prompt + expected output tokens of the
	// in-flight requests.
	InFlightTokens int
	// Completed and Errors count finished requests.
	Completed, Errors int
	// EWMATTFT and EWMATBT are exponentially weighted moving averages of
	// the client-measured TTFT and TBT (0 until the first sample).
	EWMATTFT, EWMATBT time.Duration

	// Scraped is true when the fields below come from the server's /metrics.
	Scraped bool
	// Running and Waiting are vllm:num_requests_running / _waiting.
	Running, Waiting float64
	// KVUsage is vllm:kv_cache_usage_perc as a fraction in [0,1].
	KVUsage float64
	// NumGPUBlocks is the server's KV capacity in blocks (0 when unknown).
	NumGPUBlocks int
	// PrefixQueries and PrefixHits are the server's prefix-cache counters
	// in tokens (vllm:prefix_cache_queries_total / _hits_total).
	PrefixQueries, PrefixHits float64
	// LoRAScraped is true when LoRARunning, LoRAWaiting and MaxLoRA come
	// from the server's vllm:lora_requests_info.
	LoRAScraped bool
	// LoRARunning and LoRAWaiting are the adapters of the server's
	// running and waiting requests.
	LoRARunning, LoRAWaiting []string
	// MaxLoRA is the server's max_lora (0 when not exposed).
	MaxLoRA int
}

// State is what a policy sees at a decision point.
type State struct {
	// Now is the time since the start of the Run (virtual or real).
	Now time.Duration
	// Backends lists every Backend, indexed by Backend.Index.
	Backends []Backend
}
