package dialect

// openai is a plain OpenAI-compatible server: standard request fields
// only (an unknown field may be refused), the cached prompt tokens of
// usage.prompt_tokens_details when it reports them, no metrics, no
// tokenizer endpoints and no way to flush a cache. Output lengths are
// bounded by max_tokens but may end early at an end-of-sequence token.
var openai = Dialect{
	Name:      OpenAI,
	Endpoints: Endpoints{Models: "/v1/models", Responses: "/v1/responses"},
	cached:    detailsCached,
	flushNote: "plain OpenAI-compatible servers offer no cache flush",
}
