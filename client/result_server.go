package client

import "github.com/tracebench/tracebench/results"

// serverTimings converts the response's timings object (nil: none).
func serverTimings(t *apiTimings) *results.ServerTimings {
	if t == nil {
		return nil
	}
	st := &results.ServerTimings{PromptN: t.PromptN, PromptMS: t.PromptMS, PredictedN: t.PredictedN, PredictedMS: t.PredictedMS}
	if t.CacheN != nil {
		st.CacheN = *t.CacheN
	}
	return st
}
