package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tracebench/tracebench/traces"
)

// bodyError is a request body the gateway cannot route: Field names the
// JSON field ("" for the body as a whole), answered 400.
type bodyError struct {
	Field string
	Msg   string
}

func (e *bodyError) Error() string {
	if e.Field == "" {
		return "request body: " + e.Msg
	}
	return "request body field " + e.Field + ": " + e.Msg
}

func fieldErr(field, format string, a ...any) error {
	return &bodyError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// apiBody is what the gateway reads of an OpenAI completions or chat
// request; everything else passes through unread.
type apiBody struct {
	Model               json.RawMessage `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            json.RawMessage `json:"messages"`
	MaxTokens           json.RawMessage `json:"max_tokens"`
	MaxCompletionTokens json.RawMessage `json:"max_completion_tokens"`
	Stream              json.RawMessage `json:"stream"`
	User                json.RawMessage `json:"user"`
}

// parseBody reads the routing view of a request body: the model, the
// prompt (text, token ids, or chat messages when chat), the output
// length asked (max_tokens, else max_completion_tokens) and the user.
// A body that is not a JSON object, or a field of the wrong type, is a
// *bodyError naming the field.
func parseBody(b []byte, chat bool) (traces.Request, error) {
	var req traces.Request
	var ab apiBody
	if err := json.Unmarshal(b, &ab); err != nil {
		return req, wholeBodyErr(err)
	}
	var err error
	if req.Model, err = optString("model", ab.Model); err != nil {
		return req, err
	}
	if req.User, err = optString("user", ab.User); err != nil {
		return req, err
	}
	if err := checkBool("stream", ab.Stream); err != nil {
		return req, err
	}
	if req.OutputTokens, err = maxTokens(ab); err != nil {
		return req, err
	}
	if chat {
		req.Messages, err = parseMessages(ab.Messages)
		return req, err
	}
	return req, parsePrompt(ab.Prompt, &req)
}

// wholeBodyErr words a failed decode of the whole body.
func wholeBodyErr(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fieldErr("", "not valid JSON (offset %d: %v)", se.Offset, err)
	case errors.As(err, &te):
		return fieldErr("", "want a JSON object, got %s", te.Value)
	}
	return fieldErr("", "not valid JSON: %v", err)
}

// present reports whether a field was given (and not null).
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

// optString decodes an optional string field.
func optString(field string, raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fieldErr(field, "want a string, got %s", clip(raw))
	}
	return s, nil
}

// checkBool checks an optional boolean field.
func checkBool(field string, raw json.RawMessage) error {
	var v bool
	if present(raw) && json.Unmarshal(raw, &v) != nil {
		return fieldErr(field, "want true or false, got %s", clip(raw))
	}
	return nil
}

// maxTokens is the output length asked: max_tokens, else
// max_completion_tokens (0: none asked).
func maxTokens(ab apiBody) (int, error) {
	field, raw := "max_tokens", ab.MaxTokens
	if !present(raw) {
		field, raw = "max_completion_tokens", ab.MaxCompletionTokens
	}
	if !present(raw) {
		return 0, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || n < 0 || n > traces.MaxTokens {
		return 0, fieldErr(field, "want a whole number from 0 to %d, got %s", traces.MaxTokens, clip(raw))
	}
	return n, nil
}

// parsePrompt reads a completions prompt: a string, an array of token
// ids, or an array holding one of either (a batch of several prompts is
// refused: each is routed on its own).
func parsePrompt(raw json.RawMessage, req *traces.Request) error {
	if !present(raw) {
		return fieldErr("prompt", "required for completions")
	}
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &req.Prompt); err != nil {
			return fieldErr("prompt", "bad string: %v", err)
		}
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fieldErr("prompt", "want a string or an array of token ids, got %s", clip(raw))
	}
	if len(items) == 0 {
		return fieldErr("prompt", "empty array")
	}
	if c := items[0][0]; c == '"' || c == '[' {
		if len(items) > 1 {
			return fieldErr("prompt", "a batch of %d prompts; send one prompt per request so each is routed", len(items))
		}
		return parsePrompt(items[0], req)
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err != nil {
		return fieldErr("prompt", "want an array of token ids (whole numbers), got %s", clip(raw))
	}
	req.TokenIDs, req.InputTokens = ids, len(ids)
	return nil
}

// apiMessage is one chat message; Content is a string or an array of
// content parts.
type apiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentPart is one part of a message's content; only text parts carry
// prompt text the routers read.
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// parseMessages reads a chat request's messages.
func parseMessages(raw json.RawMessage) ([]traces.Message, error) {
	if !present(raw) {
		return nil, fieldErr("messages", "required for chat completions")
	}
	var ms []apiMessage
	if err := json.Unmarshal(raw, &ms); err != nil {
		return nil, fieldErr("messages", "want an array of {role, content} objects, got %s", clip(raw))
	}
	if len(ms) == 0 {
		return nil, fieldErr("messages", "empty array")
	}
	out := make([]traces.Message, len(ms))
	for i, m := range ms {
		text, err := messageText(m.Content)
		if err != nil {
			return nil, fieldErr(fmt.Sprintf("messages[%d].content", i), "%v", err)
		}
		out[i] = traces.Message{Role: m.Role, Content: text}
	}
	return out, nil
}

// messageText is a message content's text: the string, or its text
// parts joined by newlines (other parts carry no text).
func messageText(raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", nil
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("bad string: %v", err)
		}
		return s, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or an array of content parts, got %s", clip(raw))
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// clip shows at most 40 bytes of a raw value in an error.
func clip(raw json.RawMessage) string {
	const n = 40
	if len(raw) <= n {
		return string(raw)
	}
	return string(raw[:n]) + "…"
}
