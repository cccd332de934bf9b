package replay

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tracebench/tracebench/traces"
)

// API names accepted in ClientOptions.API.
const (
	// APICompletions sends /v1/completions requests (the default).
	APICompletions = "completions"
	// APIChat sends /v1/chat/completions requests.
	APIChat = "chat"
)

// streamOptions asks for a final usage chunk (OpenAI stream_options).
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// completionsBody is a /v1/completions request. MinTokens and IgnoreEOS
// are extra sampling parameters of vLLM's OpenAI-compatible server (as
// vLLM's own benchmark sends them): together with MaxTokens they make the
// output exactly as long as the trace says. Temperature 0 keeps replays
// repeatable.
type completionsBody struct {
	Model         string         `json:"model"`
	Prompt        any            `json:"prompt"`
	MaxTokens     int            `json:"max_tokens,omitempty"`
	MinTokens     int            `json:"min_tokens,omitempty"`
	IgnoreEOS     bool           `json:"ignore_eos"`
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options,omitempty"`
	Temperature   float64        `json:"temperature"`
}

// chatBody is a /v1/chat/completions request.
type chatBody struct {
	Model         string           `json:"model"`
	Messages      []traces.Message `json:"messages"`
	MaxTokens     int              `json:"max_tokens,omitempty"`
	MinTokens     int              `json:"min_tokens,omitempty"`
	IgnoreEOS     bool             `json:"ignore_eos"`
	Stream        bool             `json:"stream"`
	StreamOptions *streamOptions   `json:"stream_options,omitempty"`
	Temperature   float64          `json:"temperature"`
}

// endpoint returns the request path for the configured API.
func (c *Client) endpoint() string {
	if c.o.API == APIChat {
		return "/v1/chat/completions"
	}
	return "/v1/completions"
}

// model returns the model name for req: its LoRA adapter (vLLM serves
// adapters under their own model names), else its Model, else the
// Client's.
func (c *Client) model(req *traces.Request) string {
	switch {
	case req.LoRA != "":
		return req.LoRA
	case req.Model != "":
		return req.Model
	}
	return c.o.Model
}

// body encodes the JSON request body for req. OutputTokens 0 omits
// max_tokens and min_tokens (the server's default length applies).
// stream_options is only sent when streaming (vLLM rejects it otherwise).
func (c *Client) body(req *traces.Request) ([]byte, error) {
	var so *streamOptions
	if c.o.Stream {
		so = &streamOptions{IncludeUsage: true}
	}
	n := max(req.OutputTokens, 0)
	var v any
	if c.o.API == APIChat {
		msgs := req.Messages
		if len(msgs) == 0 {
			msgs = []traces.Message{{Role: "user", Content: traces.PromptText(req)}}
		}
		v = &chatBody{Model: c.model(req), Messages: msgs, MaxTokens: n, MinTokens: n,
			IgnoreEOS: true, Stream: c.o.Stream, StreamOptions: so}
	} else {
		v = &completionsBody{Model: c.model(req), Prompt: c.prompt(req), MaxTokens: n, MinTokens: n,
			IgnoreEOS: true, Stream: c.o.Stream, StreamOptions: so}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request %s: %w", req.ID, err)
	}
	return b, nil
}

// prompt is the completions prompt: token ids when TokenExact and the
// Request has block or token ids, else text.
func (c *Client) prompt(req *traces.Request) any {
	if c.o.TokenExact {
		if ids := traces.PromptTokens(req); ids != nil {
			return ids
		}
	}
	return traces.PromptText(req)
}

// baseURL normalises a Backend address: no trailing slash and no "/v1"
// suffix (OpenAI client base URLs often carry one).
func baseURL(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}
