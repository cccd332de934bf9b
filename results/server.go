package results

import "time"

// Stall is one gap between successive content chunks of a Request that
// was several times the Request's median gap (stallFactor): when the
// server stopped generating for it (a llama.cpp slot save, an
// admission, a preemption), kept with its wall time so that a fit can
// line stalls up across requests.
type Stall struct {
	// At is when the gap began (the chunk before it), on the Result's
	// clock (since the run started).
	At time.Duration `json:"at"`
	// Gap is the gap's length.
	Gap time.Duration `json:"gap"`
}

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
