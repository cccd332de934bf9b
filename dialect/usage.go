package dialect

// Raw is what one response, or one streamed chunk, says about tokens:
// the OpenAI usage object and llama.cpp's timings object, as found. The
// client's response parser fills it (client.ReadUsage reads one body);
// the Dialect decides what it means.
type Raw struct {
	// HasUsage reports a non-null "usage" object.
	HasUsage bool
	// PromptTokens and CompletionTokens are usage.prompt_tokens and
	// usage.completion_tokens.
	PromptTokens, CompletionTokens int
	// HasDetailsCached reports usage.prompt_tokens_details.cached_tokens
	// present and not null; DetailsCached is its value (tokens).
	HasDetailsCached bool
	DetailsCached    int
	// HasTimings reports llama.cpp's "timings" object with a cache_n
	// figure; CacheN is the prompt tokens reused from the slot's cache
	// and PromptN those computed (timings.prompt_n).
	HasTimings      bool
	CacheN, PromptN int
	// HasReasoning reports a reasoning token count in the usage:
	// completion_tokens_details.reasoning_tokens (OpenAI, the Responses
	// API's output_tokens_details.reasoning_tokens) or SGLang's top-level
	// usage.reasoning_tokens; ReasoningTokens is its value.
	HasReasoning    bool
	ReasoningTokens int
}

// Usage is one response's token accounting in the dialect's terms.
type Usage struct {
	// Prompt and Completion are the prompt and generated tokens the
	// server counted.
	Prompt, Completion int
	// Cached is the prompt tokens served from the prefix cache; valid
	// only when CachedKnown.
	Cached int
	// CachedKnown reports that the response carried a cached count.
	CachedKnown bool
	// Reasoning is the generated tokens that were reasoning (part of
	// Completion); valid only when ReasoningKnown.
	Reasoning      int
	ReasoningKnown bool
}

// Usage interprets r: prompt and completion tokens from usage (for
// llama.cpp without usage, cache_n + prompt_n), and the cached prompt
// tokens where the dialect puts them.
func (d *Dialect) Usage(r *Raw) Usage {
	u := Usage{Prompt: r.PromptTokens, Completion: r.CompletionTokens}
	if !r.HasUsage && r.HasTimings {
		u.Prompt = r.CacheN + r.PromptN
	}
	if d != nil && d.cached != nil {
		u.Cached, u.CachedKnown = d.cached(r)
	}
	u.Reasoning, u.ReasoningKnown = r.ReasoningTokens, r.HasReasoning
	return u
}

// detailsCached reads usage.prompt_tokens_details.cached_tokens, the
// OpenAI field (vLLM with --enable-prompt-tokens-details, SGLang with
// --enable-cache-report, llama.cpp after b7099).
func detailsCached(r *Raw) (int, bool) { return r.DetailsCached, r.HasDetailsCached }
