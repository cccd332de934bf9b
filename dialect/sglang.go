package dialect

// sglang is SGLang's OpenAI-compatible server. Sources: SGLang's
// "Production Metrics" documentation and metrics collector
// (sglang:num_running_reqs, sglang:num_queue_reqs, sglang:token_usage,
// sglang:prompt_tokens_total, sglang:cached_tokens_total by
// cache_source, sglang:num_retracted_requests_total), its sampling
// parameters (min_tokens, ignore_eos), usage.prompt_tokens_details with
// --enable-cache-report, its /flush_cache endpoint and its Responses API
// (/v1/responses, python/sglang/srt/entrypoints/openai/serving_responses.py).
var sglang = Dialect{
	Name: SGLang,
	Metrics: Metrics{
		Prefix:  "sglang:",
		Running: []string{"sglang:num_running_reqs"},
		Waiting: []string{"sglang:num_queue_reqs"},
		KVUsage: []string{"sglang:token_usage"},
		// prompt_tokens_total counts every prompt token (cached ones
		// included), so it is the query count; cached_tokens_total
		// (summed over device, host and storage) the hits.
		PrefixQueries:    []string{"sglang:prompt_tokens_total"},
		PrefixHits:       []string{"sglang:cached_tokens_total"},
		PromptTokens:     []string{"sglang:prompt_tokens_total"},
		GenerationTokens: []string{"sglang:generation_tokens_total"},
		Preemptions:      []string{"sglang:num_retracted_requests_total"},
	},
	Endpoints:    Endpoints{Health: "/health", Models: "/v1/models", Metrics: "/metrics", Responses: "/v1/responses"},
	extras:       minTokensExtras,
	cached:       detailsCached,
	flush:        postFlush("/flush_cache"),
	tokenPrompts: true,
	flushNote:    "POST /flush_cache, which SGLang refuses while requests are running",
	flushHint:    "let the requests of other clients finish before the bench (SGLang flushes an idle server)",
}
