package client

import (
	"encoding/json"
	"fmt"

	"github.com/tracebench/tracebench/results"
)

// nativeChunk is one result of llama.cpp's native completion API (POST
// /completion): a streamed partial result, the final one, or a whole
// non-streamed result. Only the fields the client measures are decoded.
// Shapes: llama-server b7099, server.cpp, to_json_non_oaicompat of
// server_task_result_cmpl_partial (content, tokens, stop false,
// id_slot −1 as the server leaves it unset, tokens_predicted so far,
// tokens_evaluated; timings only with timings_per_token) and of
// server_task_result_cmpl_final (stop true, the serving slot's id_slot,
// tokens_predicted, tokens_evaluated, tokens_cached, stop_type,
// timings; its content is empty when streamed). A streamed error is
// {"error": {...}}; a native stream has no [DONE] (handle_completions_impl
// sends it for the OpenAI-compatible APIs only).
type nativeChunk struct {
	Content string `json:"content"`
	Stop    bool   `json:"stop"`
	// IDSlot is the slot that served the request; negative: not said.
	IDSlot *int `json:"id_slot"`
	// TokensPredicted is the tokens generated so far; TokensEvaluated
	// the prompt's tokens.
	TokensPredicted *int        `json:"tokens_predicted"`
	TokensEvaluated int         `json:"tokens_evaluated"`
	Timings         *apiTimings `json:"timings"`
	// Error is an in-stream error result.
	Error json.RawMessage `json:"error"`
}

// decodeNative summarises one native result; text is its content. where
// names its place in error texts. An error result is a stream error;
// invalid JSON (or an array: the client sends one prompt) a bad
// payload.
func decodeNative(data []byte, where string) (chunkInfo, string, error) {
	var n nativeChunk
	if err := json.Unmarshal(data, &n); err != nil {
		return chunkInfo{}, "", &classedError{class: results.ErrBadPayload,
			err: fmt.Errorf("decode native %s %q: %w", where, clip(data, 80), err)}
	}
	if msg := (&apiChunk{Error: n.Error}).errorText(); msg != "" {
		return chunkInfo{}, "", classed(results.ErrStreamError, "error in %s: %s", where, clipString(msg, 200))
	}
	return n.info(), n.Content, nil
}

// info is the chunk's summary: its token counts as a usage object
// (tokens_predicted is cumulative, so a result that follows skipped
// content counts every token since), its timings, and its slot when
// named.
func (n *nativeChunk) info() chunkInfo {
	info := chunkInfo{content: n.Content != "", finished: n.Stop, timings: n.Timings}
	if n.TokensPredicted != nil {
		info.usage = &apiUsage{PromptTokens: n.TokensEvaluated, CompletionTokens: *n.TokensPredicted}
	}
	if n.IDSlot != nil && *n.IDSlot >= 0 {
		info.slot = n.IDSlot
	}
	return info
}
