package replay

// llama.cpp's server (b7099 and near releases) reports a request's
// cached prompt tokens not in usage.prompt_tokens_details.cached_tokens
// but as timings.cache_n in the last chunk: the tokens of the prompt it
// took from the slot's (or the host-memory) prompt cache. This file is
// the one place that reads it; the chunk scanner declines chunks with a
// "timings" key, so they are decoded with encoding/json into apiChunk.

// apiTimings is llama.cpp's per-request timings object.
type apiTimings struct {
	// CacheN is the prompt tokens served from the prompt cache.
	CacheN *int `json:"cache_n"`
}

// cachedFromTimings returns timings.cache_n and whether it was present.
func (c *apiChunk) cachedFromTimings() (int, bool) {
	if c.Timings == nil || c.Timings.CacheN == nil {
		return 0, false
	}
	return *c.Timings.CacheN, true
}
