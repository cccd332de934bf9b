package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// apiChunk is one streamed chunk (or a whole non-streamed response) of
// the OpenAI completions or chat completions API, as vLLM sends it. Only
// the fields the client measures are decoded.
type apiChunk struct {
	Choices []apiChoice `json:"choices"`
	Usage   *apiUsage   `json:"usage"`
	// Timings is llama.cpp's per-response timing object; its cache_n is
	// the prompt tokens reused from the slot's cache.
	Timings *apiTimings `json:"timings"`
	// IDSlot is the llama.cpp slot that served the request, in the
	// responses that name it.
	IDSlot *int `json:"id_slot"`
	// Error is vLLM's in-stream error frame: {"error": {...}}.
	Error json.RawMessage `json:"error"`
	// Object and Message are the older flat error form:
	// {"object": "error", "message": "..."}.
	Object  string `json:"object"`
	Message string `json:"message"`
}

type apiChoice struct {
	// Text is the completions API's generated text.
	Text string `json:"text"`
	// Delta is the chat API's streamed message fragment.
	Delta apiMessage `json:"delta"`
	// Message is the chat API's whole message (non-streamed).
	Message      apiMessage `json:"message"`
	FinishReason *string    `json:"finish_reason"`
}

type apiMessage struct {
	Content string `json:"content"`
	// ReasoningContent is the reasoning text of reasoning models (vLLM
	// before its rename, SGLang, llama.cpp); Reasoning is vLLM's name for
	// it since the rename (https://github.com/vllm-project/vllm/pull/27752). Those tokens are generated
	// output: they count as tokens, but not as the first output token.
	ReasoningContent string `json:"reasoning_content"`
	Reasoning        string `json:"reasoning"`
}

type apiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// CompletionTokensDetails carries the OpenAI reasoning_tokens figure.
	CompletionTokensDetails *apiCompletionDetails `json:"completion_tokens_details"`
	// ReasoningTokens is SGLang's top-level usage.reasoning_tokens.
	ReasoningTokens *int `json:"reasoning_tokens"`
}

// apiCompletionDetails is usage.completion_tokens_details.
type apiCompletionDetails struct {
	ReasoningTokens *int `json:"reasoning_tokens"`
}

// apiTimings is the part of llama.cpp's timings object the client reads.
type apiTimings struct {
	CacheN      *int    `json:"cache_n"`
	PromptN     int     `json:"prompt_n"`
	PromptMS    float64 `json:"prompt_ms"`
	PredictedN  int     `json:"predicted_n"`
	PredictedMS float64 `json:"predicted_ms"`
}

// apiErrorBody is the error object inside {"error": {...}}.
type apiErrorBody struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// hasContent reports whether the chunk carries generated text outside
// the reasoning channel: a non-empty text, delta content or message
// content in any choice. Role-only and usage-only chunks are not
// content.
func (c *apiChunk) hasContent() bool {
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Text != "" || ch.Delta.Content != "" || ch.Message.Content != "" {
			return true
		}
	}
	return false
}

// hasReasoning reports whether the chunk carries reasoning text in any
// choice (reasoning_content or reasoning, of a delta or a message).
func (c *apiChunk) hasReasoning() bool {
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Delta.ReasoningContent != "" || ch.Delta.Reasoning != "" ||
			ch.Message.ReasoningContent != "" || ch.Message.Reasoning != "" {
			return true
		}
	}
	return false
}

// text returns the chunk's generated text outside the reasoning
// channel, the choices' texts and contents joined in order.
func (c *apiChunk) text() string {
	var b strings.Builder
	for i := range c.Choices {
		ch := &c.Choices[i]
		b.WriteString(ch.Text)
		b.WriteString(ch.Delta.Content)
		b.WriteString(ch.Message.Content)
	}
	return b.String()
}

// finished reports whether any choice carries a finish_reason.
func (c *apiChunk) finished() bool {
	for i := range c.Choices {
		if f := c.Choices[i].FinishReason; f != nil && *f != "" {
			return true
		}
	}
	return false
}

// errorText returns the server's error message when the chunk is an
// error frame, and "" otherwise.
func (c *apiChunk) errorText() string {
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
		var e apiErrorBody
		if json.Unmarshal(c.Error, &e) == nil && e.Message != "" {
			if e.Type != "" {
				return e.Type + ": " + e.Message
			}
			return e.Message
		}
		var s string
		if json.Unmarshal(c.Error, &s) == nil && s != "" {
			return s
		}
		return string(c.Error)
	}
	if c.Object == "error" {
		if c.Message != "" {
			return c.Message
		}
		return "error object without message"
	}
	return ""
}

// decodeChunk parses one JSON chunk into c, which is reset first (slices
// are not reused: encoding/json would keep stale fields of old elements).
func decodeChunk(data []byte, c *apiChunk) error {
	*c = apiChunk{}
	if err := json.Unmarshal(data, c); err != nil {
		return fmt.Errorf("decode chunk %q: %w", clip(data, 80), err)
	}
	return nil
}

// clip returns at most n bytes of b as a string, with "…" when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
