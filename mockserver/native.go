package mockserver

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/traces/tokenizer"
)

// epNative is llama-server's native completion endpoint, POST
// /completion, served when the mock answers as llama.cpp.
const epNative endpoint = epResponses + 1

// nativeRequest is the part of a llama.cpp /completion body the mock
// reads (server.cpp b7099, params_from_json_cmpl and
// handle_completions_impl): prompt (text or token ids), n_predict (the
// output cap; −1 or absent: none), stream, ignore_eos and id_slot.
// cache_prompt, temperature, seed and the other sampling fields are
// accepted and ignored: the mock always reuses its cache.
type nativeRequest struct {
	Model     string          `json:"model"`
	Prompt    json.RawMessage `json:"prompt"`
	NPredict  *int            `json:"n_predict"`
	Stream    bool            `json:"stream"`
	IgnoreEOS bool            `json:"ignore_eos"`
	IDSlot    *int            `json:"id_slot"`
}

// parseNative decodes a /completion body.
func parseNative(body []byte, tok tokenizer.Tokenizer) (*generation, error) {
	var r nativeRequest
	if err := strictDecode(body, &r); err != nil {
		return nil, err
	}
	var limit *int
	if r.NPredict != nil && *r.NPredict > 0 {
		limit = r.NPredict
	}
	f := requestFields{Model: r.Model, IgnoreEOS: r.IgnoreEOS, Stream: r.Stream, IDSlot: r.IDSlot}
	g, err := f.generation(false, limit)
	if err != nil {
		return nil, err
	}
	g.native = true
	if g.prompt, err = parsePrompt(r.Prompt, tok); err != nil {
		return nil, err
	}
	return g, nil
}

// nativeWriter writes a /completion stream as llama-server b7099 does
// (server.cpp: server_task_result_cmpl_partial::to_json_non_oaicompat
// per token, then server_task_result_cmpl_final's, each as "data:
// JSON\n\n" by utils.hpp format_sse; no [DONE] ends a native stream).
// Partial results carry id_slot −1, as the server leaves it unset
// there; the final one names the slot and carries the timings.
type nativeWriter struct{ rs *response }

func (n nativeWriter) begin(dst []byte) []byte { return dst }

// token appends one partial result: the token's text (reasoning between
// <think> tags, as the native endpoint has no reasoning parser) and the
// counts so far.
func (n nativeWriter) token(dst []byte, t genToken) []byte {
	text := t.text
	if t.reasoning {
		text = tagged(t)
	}
	dst = append(dst, `data: {"index":0,"content":`...)
	dst = appendJSONString(dst, text)
	dst = append(dst, `,"tokens":[`...)
	dst = strconv.AppendInt(dst, int64(t.id), 10)
	dst = append(dst, `],"stop":false,"id_slot":-1,"tokens_predicted":`...)
	dst = strconv.AppendInt(dst, int64(n.rs.out), 10)
	dst = append(dst, `,"tokens_evaluated":`...)
	dst = strconv.AppendInt(dst, int64(len(n.rs.g.prompt)), 10)
	return append(dst, "}\n\n"...)
}

// end appends the final result (content empty: the partials carried it).
func (n nativeWriter) end(dst []byte) []byte {
	b, _ := json.Marshal(n.rs.nativeFinal(""))
	dst = append(dst, "data: "...)
	dst = append(dst, b...)
	return append(dst, "\n\n"...)
}

// nativeResult is llama-server's final /completion result, the fields
// the mock fills (server.cpp, to_json_non_oaicompat of
// server_task_result_cmpl_final).
type nativeResult struct {
	Index           int           `json:"index"`
	Content         string        `json:"content"`
	Tokens          []int         `json:"tokens"`
	IDSlot          int           `json:"id_slot"`
	Stop            bool          `json:"stop"`
	Model           string        `json:"model"`
	TokensPredicted int           `json:"tokens_predicted"`
	TokensEvaluated int           `json:"tokens_evaluated"`
	StopType        string        `json:"stop_type"`
	TokensCached    int           `json:"tokens_cached"`
	Timings         nativeTimings `json:"timings"`
	Truncated       bool          `json:"truncated"`
	StoppingWord    string        `json:"stopping_word"`
}

// nativeTimings is llama.cpp's timings object (server.cpp,
// result_timings::to_json): prompt tokens reused (cache_n) and computed
// (prompt_n) and the time computing them (prompt_ms, from admission to
// the first token), generated tokens and the time after the first
// (predicted_ms), in milliseconds of the mock's wall clock.
type nativeTimings struct {
	timings
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// nativeFinal is the final result with content text.
func (rs *response) nativeFinal(text string) nativeResult {
	p := len(rs.g.prompt)
	stop := "limit"
	if rs.reason == "stop" {
		stop = "eos"
	}
	return nativeResult{Content: text, Tokens: []int{}, IDSlot: rs.slot, Stop: true, Model: rs.g.model,
		TokensPredicted: rs.out, TokensEvaluated: p, StopType: stop, TokensCached: p + max(rs.out-1, 0),
		Timings: nativeTimings{timings: rs.promptTimings(), PromptMS: spanMS(rs.admitted, rs.first),
			PredictedN: rs.out, PredictedMS: spanMS(rs.first, rs.last)}}
}

// spanMS is the time from a to b in milliseconds (0 when either is
// unset).
func spanMS(a, b time.Time) float64 {
	if a.IsZero() || b.IsZero() {
		return 0
	}
	return max(float64(b.Sub(a).Microseconds())/1e3, 0)
}

// nativeText is a whole /completion result's content: the reasoning
// between <think> tags (the closing one when it ended), then the text.
func nativeText(reasoning string, ended bool, text string) string {
	if reasoning == "" {
		return text
	}
	return tagged(genToken{text: reasoning, first: true, reasoningEnd: ended}) + text
}
