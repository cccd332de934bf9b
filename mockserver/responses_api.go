package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tracebench/tracebench/traces/tokenizer"
)

// endpoint is the API a request came to.
type endpoint int

const (
	epCompletions endpoint = iota // /v1/completions
	epChat                        // /v1/chat/completions
	epResponses                   // /v1/responses (OpenAI Responses API)
)

// responsesRequest is the part of a /v1/responses body the mock reads,
// as vLLM's ResponsesRequest names it
// (vllm/entrypoints/openai/responses/protocol.py): input, the output cap
// max_output_tokens, stream, and vLLM's ignore_eos and cache_salt. Usage
// always comes with the response, so there are no stream_options.
type responsesRequest struct {
	Model           string          `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    string          `json:"instructions"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Stream          bool            `json:"stream"`
	IgnoreEOS       bool            `json:"ignore_eos"`
	CacheSalt       string          `json:"cache_salt"`
}

// responsesItem is one input item: an EasyInputMessage ({role,
// content}) or a message item ({"type": "message", role, content}),
// content a string or a list of input_text parts.
type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// parseResponses decodes a Responses API body. The input renders with the
// chat template of parseChat (instructions first, as a system message).
func parseResponses(body []byte, tok tokenizer.Tokenizer) (*generation, error) {
	var r responsesRequest
	if err := strictDecode(body, &r); err != nil {
		return nil, err
	}
	g := &generation{responses: true, model: r.Model, ignoreEOS: r.IgnoreEOS, salt: r.CacheSalt}
	if mt := r.MaxOutputTokens; mt != nil {
		if *mt < 1 {
			return nil, fmt.Errorf("max_output_tokens must be at least 1, got %d.", *mt)
		}
		g.maxTokens = *mt
	}
	g.stream = r.Stream
	text, err := responsesInput(r.Input, r.Instructions)
	if err != nil {
		return nil, err
	}
	g.prompt = tok.Encode(text)
	if len(g.prompt) == 0 {
		return nil, errors.New("input: the rendered prompt is empty")
	}
	return g, nil
}

// responsesInput renders the input (a string, or a list of message
// items) and the instructions through the mock's chat template.
func responsesInput(raw json.RawMessage, instructions string) (string, error) {
	var sb strings.Builder
	if instructions != "" {
		fmt.Fprintf(&sb, "<|system|>\n%s\n", instructions)
	}
	var s string
	var items []responsesItem
	switch {
	case len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		return "", errors.New("input: field required")
	case json.Unmarshal(raw, &s) == nil:
		fmt.Fprintf(&sb, "<|user|>\n%s\n", s)
	case json.Unmarshal(raw, &items) == nil:
		if len(items) == 0 {
			return "", errors.New("input: at least one item is required")
		}
		for i, it := range items {
			if it.Type != "" && it.Type != "message" {
				return "", fmt.Errorf("input[%d].type: %q is not supported by the mock server (messages only)", i, it.Type)
			}
			text, err := itemText(it.Content)
			if err != nil {
				return "", fmt.Errorf("input[%d].content: %w", i, err)
			}
			fmt.Fprintf(&sb, "<|%s|>\n%s\n", it.Role, text)
		}
	default:
		return "", errors.New("input: want a string or a list of message items")
	}
	sb.WriteString("<|assistant|>\n")
	return sb.String(), nil
}

// itemText is a message item's text: a string, or its input_text,
// output_text and text parts joined by newlines.
func itemText(raw json.RawMessage) (string, error) {
	return partsText(raw, "input_text", "output_text", "text")
}
