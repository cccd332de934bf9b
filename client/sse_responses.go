package client

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tracebench/tracebench/results"
)

// respEvent is one streamed event of the OpenAI Responses API (POST
// /v1/responses with stream: true), or a whole non-streamed response
// object. Only the fields the client measures are decoded. Event names
// and shapes: OpenAI's Responses streaming reference, as vLLM sends them
// (vllm/entrypoints/openai/responses/simple_streaming_events.py:
// response.created, response.in_progress, response.output_item.added,
// response.content_part.added, response.reasoning_text.delta,
// response.output_text.delta, the .done events, then
// response.completed with the usage; no [DONE]).
type respEvent struct {
	// Type is the event's type, e.g. "response.output_text.delta".
	Type string `json:"type"`
	// Delta is a delta event's text. It is a string; vLLM releases before
	// the OpenAI event types sent response.reasoning.delta with an object
	// ({"content": "..."}), which is read too.
	Delta json.RawMessage `json:"delta"`
	// Response is the response object of response.created,
	// response.completed, response.incomplete and response.failed.
	Response *respObject `json:"response"`
	// Message and Code are an "error" event's.
	Message string `json:"message"`
	Code    any    `json:"code"`
	// Object, Status, Output, Usage and Error are a non-streamed
	// response's own fields (Object "response").
	Object string `json:"object"`
	respObject
}

// respObject is the part of a Responses API response object the client
// reads.
type respObject struct {
	Status string       `json:"status"`
	Output []respItem   `json:"output"`
	Usage  *respUsage   `json:"usage"`
	Error  *respErrBody `json:"error"`
}

// respItem is one output item: a "message" with output_text parts or a
// "reasoning" item with reasoning_text content or summary parts.
type respItem struct {
	Type    string     `json:"type"`
	Content []respPart `json:"content"`
	Summary []respPart `json:"summary"`
}

type respPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// respErrBody is a failed response's error object.
type respErrBody struct {
	Code    any    `json:"code"`
	Message string `json:"message"`
}

// respUsage is the Responses API's usage object.
type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens *int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens *int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// Response event types the client reads; the others (created,
// in_progress, output_item.*, content_part.*, the .done events) carry
// nothing it measures.
const (
	evOutputText      = "response.output_text.delta"
	evRefusal         = "response.refusal.delta"
	evReasoningText   = "response.reasoning_text.delta"
	evReasoningOld    = "response.reasoning.delta"
	evReasoningSumm   = "response.reasoning_summary_text.delta"
	evCompleted       = "response.completed"
	evIncomplete      = "response.incomplete"
	evFailed          = "response.failed"
	evError           = "error"
	respObjectName    = "response"
	respStatusFailed  = "failed"
	respItemReasoning = "reasoning"
)

// decodeEvent summarises one Responses API event (or a non-streamed
// response when where is "response"). text is the output text of an
// output_text delta (for <think> tags). An error event or a failed
// response is a stream error; invalid JSON a bad payload.
func decodeEvent(data []byte, where string) (chunkInfo, string, error) {
	var e respEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return chunkInfo{}, "", &classedError{class: results.ErrBadPayload,
			err: fmt.Errorf("decode %s event %q: %w", where, clip(data, 80), err)}
	}
	switch e.Type {
	case evOutputText, evRefusal:
		text := deltaText(e.Delta)
		return chunkInfo{content: text != ""}, text, nil
	case evReasoningText, evReasoningOld, evReasoningSumm:
		return chunkInfo{reasoning: deltaText(e.Delta) != ""}, "", nil
	case evCompleted, evIncomplete:
		return e.Response.finish(), "", nil
	case evFailed:
		return chunkInfo{}, "", classed(results.ErrStreamError, "response failed in %s: %s", where, e.Response.errText())
	case evError:
		return chunkInfo{}, "", classed(results.ErrStreamError, "error in %s: %s", where, clipString(e.Message, 200))
	}
	if e.Object == respObjectName {
		return e.whole()
	}
	return chunkInfo{}, "", nil
}

// whole summarises a non-streamed response object.
func (e *respEvent) whole() (chunkInfo, string, error) {
	o := &e.respObject
	if o.Status == respStatusFailed {
		return chunkInfo{}, "", classed(results.ErrStreamError, "response failed: %s", o.errText())
	}
	info := o.finish()
	var text bytes.Buffer
	for _, it := range o.Output {
		for _, p := range it.Content {
			if p.Text == "" {
				continue
			}
			if it.Type == respItemReasoning {
				info.reasoning = true
			} else {
				info.content = true
				text.WriteString(p.Text)
			}
		}
		for _, p := range it.Summary {
			info.reasoning = info.reasoning || p.Text != ""
		}
	}
	return info, text.String(), nil
}

// finish is the end of a response: finished, with its usage as the
// completions API's usage object.
func (o *respObject) finish() chunkInfo {
	info := chunkInfo{finished: true}
	if o == nil || o.Usage == nil {
		return info
	}
	u := o.Usage
	au := &apiUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens}
	if d := u.InputTokensDetails; d != nil && d.CachedTokens != nil {
		au.PromptTokensDetails = &struct {
			CachedTokens int `json:"cached_tokens"`
		}{*d.CachedTokens}
	}
	if d := u.OutputTokensDetails; d != nil && d.ReasoningTokens != nil {
		au.CompletionTokensDetails = &apiCompletionDetails{ReasoningTokens: d.ReasoningTokens}
	}
	info.usage = au
	return info
}

// errText is a failed response's error message.
func (o *respObject) errText() string {
	if o == nil || o.Error == nil || o.Error.Message == "" {
		return "no error message"
	}
	return clipString(o.Error.Message, 200)
}

// deltaText is a delta's text: the string, or the content of an object
// delta ("" for anything else).
func deltaText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
		Text    string `json:"text"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content + o.Text
	}
	return ""
}
