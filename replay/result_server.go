package replay

// ServerTimings is llama.cpp's own account of one request (its response's
// timings object, sent with the last chunk): what an engine-model fit
// needs beside the client's times. Figures are the server's, in its
// units.
type ServerTimings struct {
	// PromptN is the prompt tokens the server computed; CacheN those it
	// reused from the slot's cache.
	PromptN int `json:"prompt_n"`
	CacheN  int `json:"cache_n"`
	// PromptMS is the milliseconds the server spent computing the prompt
	// (from the first prompt batch to the first token, saves excluded).
	PromptMS float64 `json:"prompt_ms"`
	// PredictedN is the tokens generated and PredictedMS the milliseconds
	// from the first generated token to the last.
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// serverTimings converts the response's timings object (nil: none).
func serverTimings(t *apiTimings) *ServerTimings {
	if t == nil {
		return nil
	}
	st := &ServerTimings{PromptN: t.PromptN, PromptMS: t.PromptMS, PredictedN: t.PredictedN, PredictedMS: t.PredictedMS}
	if t.CacheN != nil {
		st.CacheN = *t.CacheN
	}
	return st
}
