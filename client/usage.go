package client

import "github.com/tracebench/tracebench/dialect"

// raw is the chunk's token figures as the dialect package reads them:
// the usage object and llama.cpp's timings, as found.
func (c chunkInfo) raw() dialect.Raw {
	var raw dialect.Raw
	if u := c.usage; u != nil {
		raw.HasUsage, raw.PromptTokens, raw.CompletionTokens = true, u.PromptTokens, u.CompletionTokens
		if d := u.PromptTokensDetails; d != nil {
			raw.HasDetailsCached, raw.DetailsCached = true, d.CachedTokens
		}
		if d := u.CompletionTokensDetails; d != nil && d.ReasoningTokens != nil {
			raw.HasReasoning, raw.ReasoningTokens = true, *d.ReasoningTokens
		} else if u.ReasoningTokens != nil {
			raw.HasReasoning, raw.ReasoningTokens = true, *u.ReasoningTokens
		}
	}
	if t := c.timings; t != nil && t.CacheN != nil {
		raw.HasTimings, raw.CacheN, raw.PromptN = true, *t.CacheN, t.PromptN
	}
	return raw
}

// ReadUsage reads the prompt, completion, cached and reasoning tokens of one JSON
// response body (or one streamed chunk's data) in dialect d, with the
// parser the client reads every response with. An error frame or a body
// that is not a JSON object is an error.
func ReadUsage(body []byte, d *dialect.Dialect) (dialect.Usage, error) {
	var st scanStore
	info, err := decodeInfo(body, &st, "response")
	if err != nil {
		return dialect.Usage{}, err
	}
	raw := info.raw()
	return d.Usage(&raw), nil
}
