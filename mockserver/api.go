package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// streamOptions is OpenAI's stream_options.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// requestFields are the fields of a request body both APIs share.
type requestFields struct {
	Model         string            `json:"model"`
	MaxTokens     *int              `json:"max_tokens"`
	MinTokens     int               `json:"min_tokens"`
	IgnoreEOS     bool              `json:"ignore_eos"`
	Stream        bool              `json:"stream"`
	StreamOptions *streamOptions    `json:"stream_options"`
	N             *int              `json:"n"`
	CacheSalt     string            `json:"cache_salt"`
	KVTransfer    *kvTransferParams `json:"kv_transfer_params"`
	// IDSlot is llama.cpp's id_slot: the slot to run on, −1 or absent
	// for any; a mock without slots ignores it, as vLLM does.
	IDSlot *int `json:"id_slot"`
}

// completionRequest is the part of a /v1/completions body the mock reads.
type completionRequest struct {
	requestFields
	Prompt json.RawMessage `json:"prompt"`
}

// chatRequest is the part of a /v1/chat/completions body the mock reads.
type chatRequest struct {
	requestFields
	Messages            []chatMessage `json:"messages"`
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
}

// generation checks the shared fields and returns the generation they
// describe, maxTokens its output limit (nil: none given).
func (r requestFields) generation(chat bool, maxTokens *int) (*generation, error) {
	g := &generation{chat: chat, model: r.Model, minTokens: r.MinTokens, ignoreEOS: r.IgnoreEOS, salt: r.CacheSalt,
		kv: r.KVTransfer}
	if r.IDSlot != nil && *r.IDSlot != -1 {
		if *r.IDSlot < 0 {
			return nil, fmt.Errorf("id_slot must be -1 (any slot) or a slot id, got %d.", *r.IDSlot)
		}
		g.slot = r.IDSlot
	}
	if err := g.common(maxTokens, r.Stream, r.StreamOptions, r.N); err != nil {
		return nil, err
	}
	return g, nil
}

// chatMessage has content as a string or as a list of parts.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// generation is a parsed request, API-independent.
type generation struct {
	chat         bool
	responses    bool // the Responses API (chat-templated input, its own events)
	native       bool // llama.cpp's /completion (its own results)
	model        string
	prompt       []int
	maxTokens    int // 0: until the context is full (vLLM's default)
	minTokens    int
	ignoreEOS    bool
	stream       bool
	includeUsage bool
	salt         string
	lora         string // adapter name when the model is not the base model
	// kv is the request's kv_transfer_params (nil: none).
	kv *kvTransferParams
	// remoteTokens is the prompt tokens whose KV a remote prefill
	// computed (do_remote_prefill), set once the params are checked.
	remoteTokens int
	// slot is the slot the request names (id_slot), nil for any.
	slot *int
	// raw is the request body, forwarded to a prefill instance when a
	// decode replica runs the prefill itself (x-prefiller-host-port).
	raw []byte
}

// common validates the sampling fields shared by both APIs.
func (g *generation) common(maxTokens *int, stream bool, so *streamOptions, n *int) error {
	if maxTokens != nil {
		if *maxTokens < 1 {
			return fmt.Errorf("max_tokens must be at least 1, got %d.", *maxTokens)
		}
		g.maxTokens = *maxTokens
	}
	if g.minTokens < 0 {
		return fmt.Errorf("min_tokens must be greater than or equal to 0, got %d.", g.minTokens)
	}
	if g.maxTokens > 0 && g.minTokens > g.maxTokens {
		return fmt.Errorf("min_tokens must be less than or equal to max_tokens=%d, got %d.", g.maxTokens, g.minTokens)
	}
	if n != nil && *n != 1 {
		return fmt.Errorf("n=%d is not supported by the mock server (only n=1)", *n)
	}
	if so != nil && !stream {
		return errors.New("Stream options can only be defined when `stream=True`.")
	}
	g.stream, g.includeUsage = stream, so != nil && so.IncludeUsage
	return nil
}

// parseCompletion decodes a completions body.
func parseCompletion(body []byte, tok tokenizer.Tokenizer) (*generation, error) {
	var r completionRequest
	if err := strictDecode(body, &r); err != nil {
		return nil, err
	}
	g, err := r.generation(false, r.MaxTokens)
	if err != nil {
		return nil, err
	}
	p, err := parsePrompt(r.Prompt, tok)
	if err != nil {
		return nil, err
	}
	g.prompt = p
	return g, nil
}

// parsePrompt reads a prompt given as text, token ids, or a one-element
// list of either.
func parsePrompt(raw json.RawMessage, tok tokenizer.Tokenizer) ([]int, error) {
	var text string
	var ids []int
	var texts []string
	var idLists [][]int
	switch {
	case len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")):
		return nil, errors.New("prompt: field required")
	case json.Unmarshal(raw, &text) == nil:
		ids = tok.Encode(text)
	case json.Unmarshal(raw, &ids) == nil:
	case json.Unmarshal(raw, &texts) == nil && len(texts) == 1:
		ids = tok.Encode(texts[0])
	case json.Unmarshal(raw, &idLists) == nil && len(idLists) == 1:
		ids = idLists[0]
	case len(texts) > 1 || len(idLists) > 1:
		return nil, errors.New("prompt: batched prompts are not supported by the mock server (send one prompt)")
	default:
		return nil, errors.New("prompt: want a string, a list of token ids, or a one-element list of either")
	}
	if len(ids) == 0 {
		return nil, errors.New("Prompt cannot be empty")
	}
	for _, id := range ids {
		if id < 0 || id >= engine.VocabSize {
			return nil, fmt.Errorf("Token id %d is out of vocabulary", id)
		}
	}
	return ids, nil
}

// parseChat decodes a chat body and renders the messages with a fixed
// template ("<|role|>\ncontent\n" per message, then "<|assistant|>\n").
func parseChat(body []byte, tok tokenizer.Tokenizer) (*generation, error) {
	var r chatRequest
	if err := strictDecode(body, &r); err != nil {
		return nil, err
	}
	mt := r.MaxCompletionTokens
	if mt == nil {
		mt = r.MaxTokens
	}
	g, err := r.generation(true, mt)
	if err != nil {
		return nil, err
	}
	if len(r.Messages) == 0 {
		return nil, errors.New("messages: at least one message is required")
	}
	var sb strings.Builder
	for i, m := range r.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d].content: %w", i, err)
		}
		fmt.Fprintf(&sb, "<|%s|>\n%s\n", m.Role, text)
	}
	sb.WriteString("<|assistant|>\n")
	g.prompt = tok.Encode(sb.String())
	return g, nil
}

// messageText returns a message's text: a string, or the text parts of a
// list of {"type": "text", "text": ...} parts joined by newlines.
func messageText(raw json.RawMessage) (string, error) { return partsText(raw, "text") }

// partsText returns a content's text: a string, or the parts of a list of
// {"type": ..., "text": ...} parts whose type is one of types, joined by
// newlines.
func partsText(raw json.RawMessage, types ...string) (string, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or a list of content parts")
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if slices.Contains(types, p.Type) {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// strictDecode decodes one JSON object, naming the offending field.
func strictDecode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: want %s, got JSON %s", te.Field, te.Type, te.Value)
		}
		return fmt.Errorf("invalid JSON body: %w", err)
	}
	return nil
}
