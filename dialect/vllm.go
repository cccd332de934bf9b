package dialect

// vllm is vLLM's OpenAI-compatible server. Sources: vLLM's "Production
// Metrics" documentation (V1 names, and the V0 names they replaced),
// its OpenAI-compatible server's extra sampling parameters (min_tokens,
// ignore_eos), its /tokenize, /detokenize and dev-mode
// /reset_prefix_cache endpoints and its Responses API (/v1/responses,
// vllm/entrypoints/openai/responses/).
var vllm = Dialect{
	Name: VLLM,
	Metrics: Metrics{
		Prefix:  "vllm:",
		Running: []string{"vllm:num_requests_running"},
		Waiting: []string{"vllm:num_requests_waiting"},
		KVUsage: []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
		PrefixQueries: []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries",
			"vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"},
		PrefixHits: []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits",
			"vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"},
		PromptTokens:     []string{"vllm:prompt_tokens_total", "vllm:prompt_tokens"},
		GenerationTokens: []string{"vllm:generation_tokens_total", "vllm:generation_tokens"},
		Preemptions:      []string{"vllm:num_preemptions_total", "vllm:num_preemptions"},
		CacheConfig:      "vllm:cache_config_info",
	},
	Endpoints: Endpoints{Health: "/health", Models: "/v1/models", Metrics: "/metrics",
		Tokenize: "/tokenize", Detokenize: "/detokenize", Responses: "/v1/responses",
		tokenizeBody: func(model, text string) any {
			return map[string]any{"model": model, "prompt": text, "add_special_tokens": false}
		},
		detokenizeBody: func(model string, ids []int) any { return map[string]any{"model": model, "tokens": ids} },
		chatTokenizeBody: func(model string, msgs []map[string]string) any {
			return map[string]any{"model": model, "messages": msgs, "add_generation_prompt": true}
		},
		readTokens: tokensField, readText: textField("prompt")},
	extras:       minTokensExtras,
	cached:       detailsCached,
	flush:        postFlush("/reset_prefix_cache"),
	tokenPrompts: true,
	flushNote:    "POST /reset_prefix_cache, which vLLM serves only with VLLM_SERVER_DEV_MODE=1",
	flushHint:    "start vLLM with the environment variable VLLM_SERVER_DEV_MODE=1",
}

// minTokensExtras asks for exactly n tokens with min_tokens and
// ignore_eos (as vLLM's own benchmark sends them; SGLang takes the same).
func minTokensExtras(n int) map[string]any {
	m := map[string]any{"ignore_eos": true}
	if n > 0 {
		m["min_tokens"] = n
	}
	return m
}
