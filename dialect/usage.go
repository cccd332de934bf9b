package dialect

import (
	"encoding/json"
	"fmt"
)

// Raw is what one response, or one streamed chunk, says about tokens:
// the OpenAI usage object and llama.cpp's timings object, as found.
// Parsers fill it; the Dialect decides what it means.
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
	return u
}

// detailsCached reads usage.prompt_tokens_details.cached_tokens, the
// OpenAI field (vLLM with --enable-prompt-tokens-details, SGLang with
// --enable-cache-report, llama.cpp after b7099).
func detailsCached(r *Raw) (int, bool) { return r.DetailsCached, r.HasDetailsCached }

// wireChunk is the JSON layout of the fields Raw comes from.
type wireChunk struct {
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens *int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Timings *struct {
		CacheN  *int `json:"cache_n"`
		PromptN int  `json:"prompt_n"`
	} `json:"timings"`
}

// ParseRaw reads the token figures of one JSON response body or one
// streamed chunk's data (the client has a faster parser for the same
// fields; this one is for tools that read a few responses, such as a
// calibration probe).
func ParseRaw(body []byte) (Raw, error) {
	var w wireChunk
	if err := json.Unmarshal(body, &w); err != nil {
		return Raw{}, fmt.Errorf("decode response: %w", err)
	}
	var r Raw
	if u := w.Usage; u != nil {
		r.HasUsage, r.PromptTokens, r.CompletionTokens = true, u.PromptTokens, u.CompletionTokens
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens != nil {
			r.HasDetailsCached, r.DetailsCached = true, *d.CachedTokens
		}
	}
	if t := w.Timings; t != nil && t.CacheN != nil {
		r.HasTimings, r.CacheN, r.PromptN = true, *t.CacheN, t.PromptN
	}
	return r, nil
}

// ReadUsage is ParseRaw followed by d.Usage: the prompt, completion and
// cached tokens of one response body in dialect d.
func (d *Dialect) ReadUsage(body []byte) (Usage, error) {
	r, err := ParseRaw(body)
	if err != nil {
		return Usage{}, err
	}
	return d.Usage(&r), nil
}
