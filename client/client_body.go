package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/traces"
)

// API names accepted in Options.API.
const (
	// APICompletions sends /v1/completions requests (the default).
	APICompletions = "completions"
	// APIChat sends /v1/chat/completions requests.
	APIChat = "chat"
	// APIResponses sends OpenAI Responses API requests (/v1/responses).
	APIResponses = "responses"
	// APINative sends llama.cpp's native completion requests (POST
	// /completion), whose results name the serving slot.
	APINative = "native"
)

// APIs lists the API names Options.API accepts.
func APIs() []string { return []string{APICompletions, APIChat, APIResponses, APINative} }

// ValidAPI reports whether api names an API ("" is the default,
// completions).
func ValidAPI(api string) bool { return api == "" || slices.Contains(APIs(), api) }

// endpoint returns the request path for the configured API.
func (c *Client) endpoint() string {
	switch c.o.API {
	case APIChat:
		return "/v1/chat/completions"
	case APIResponses:
		return "/v1/responses"
	case APINative:
		return nativePath
	}
	return "/v1/completions"
}

// chatLike reports an API whose prompt is chat messages (chat and
// responses).
func (c *Client) chatLike() bool { return c.o.API == APIChat || c.o.API == APIResponses }

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

// body encodes the JSON request body for req: the standard OpenAI
// fields (model, prompt or messages, max_tokens, stream, temperature 0
// so replays repeat) and the dialect's extras that make the output as
// long as the trace says (vLLM and SGLang: min_tokens and ignore_eos),
// and a Request's Slot where the dialect can pin one (llama.cpp:
// id_slot; other dialects leave it out). OutputTokens 0 omits max_tokens (the server's default length
// applies). stream_options asks for a final usage chunk and is only sent
// when streaming (vLLM rejects it otherwise).
func (c *Client) body(req *traces.Request) ([]byte, error) { return c.bodyWith(req, nil) }

// bodyWith is body with edit (if not nil) applied to its fields before
// encoding.
func (c *Client) bodyWith(req *traces.Request, edit func(map[string]any)) ([]byte, error) {
	switch c.o.API {
	case APIResponses:
		return c.responsesBody(req, edit)
	case APINative:
		return c.nativeBody(req, edit)
	}
	n := max(req.OutputTokens, 0)
	v := c.dialect().BodyExtras(n)
	if v == nil {
		v = map[string]any{}
	}
	v["model"], v["stream"], v["temperature"] = c.model(req), c.o.Stream, 0
	if c.o.Stream {
		v["stream_options"] = map[string]bool{"include_usage": true}
	}
	if n > 0 {
		v["max_tokens"] = n
	}
	if f := c.dialect().SlotField(); f != "" && req.Slot != nil {
		v[f] = *req.Slot
	}
	if c.o.API == APIChat {
		v["messages"] = messagesOf(req)
	} else {
		v["prompt"] = c.prompt(req)
	}
	return encodeBody(req, v, edit)
}

// responsesBody encodes a Responses API request: model, input (the chat
// messages), max_output_tokens, stream and temperature 0, with the
// dialect's ignore_eos (vLLM's Responses request takes it; it has no
// min_tokens). Usage comes in response.completed, so there are no
// stream_options.
func (c *Client) responsesBody(req *traces.Request, edit func(map[string]any)) ([]byte, error) {
	n := max(req.OutputTokens, 0)
	v := map[string]any{"model": c.model(req), "input": messagesOf(req), "stream": c.o.Stream, "temperature": 0}
	if x, ok := c.dialect().BodyExtras(n)["ignore_eos"]; ok {
		v["ignore_eos"] = x
	}
	if n > 0 {
		v["max_output_tokens"] = n
	}
	return encodeBody(req, v, edit)
}

// messagesOf is req's chat messages, or its prompt as one user message.
func messagesOf(req *traces.Request) []traces.Message {
	if len(req.Messages) > 0 {
		return req.Messages
	}
	return []traces.Message{{Role: "user", Content: traces.PromptText(req)}}
}

// encodeBody applies edit (if not nil) to v and encodes it.
func encodeBody(req *traces.Request, v map[string]any, edit func(map[string]any)) ([]byte, error) {
	if edit != nil {
		edit(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode request %s: %w", req.ID, err)
	}
	return b, nil
}

// dialect returns the Client's dialect (dialect.Default when none was
// set).
func (c *Client) dialect() *dialect.Dialect { return dialect.OrDefault(c.o.Dialect) }

// prompt is the completions prompt: with TokenExact, when the server
// takes token-id prompts, the Request's block or token ids, or the ids a
// generated prompt of synthetic words spells (so the server sees exactly
// the trace's number of tokens whatever its tokenizer); else text.
func (c *Client) prompt(req *traces.Request) any {
	if c.o.TokenExact && c.dialect().TokenPrompts() {
		if ids := traces.PromptTokens(req); ids != nil {
			return c.salted(ids)
		}
		if ids, ok := traces.SynthIDs(req.Prompt); ok {
			return c.salted(ids)
		}
	}
	return traces.PromptText(req)
}

// BaseURL normalises a Backend address: no trailing slash and no "/v1"
// suffix (OpenAI client base URLs often carry one).
func BaseURL(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}
