package dialect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Endpoints are a server's auxiliary paths; "" means the server has none.
type Endpoints struct {
	// Health answers 200 when the server is ready.
	Health string
	// Models lists the served models (OpenAI list format).
	Models string
	// Metrics is the Prometheus exposition.
	Metrics string
	// Slots lists llama.cpp's slots (one per concurrent sequence).
	Slots string
	// Tokenize and Detokenize turn text into the server's token ids and
	// back.
	Tokenize, Detokenize string
	// ApplyTemplate renders chat messages through the server's chat
	// template (llama.cpp's /apply-template).
	ApplyTemplate string
	// Responses is the OpenAI Responses API (POST /v1/responses; "" when
	// the server has none).
	Responses string
	// Native is llama.cpp's native completion API (POST /completion,
	// whose results name the serving slot; "" when the server has none).
	Native string
	// chatTokenizeBody, when set, asks Tokenize for the tokens of chat
	// messages through the chat template (vLLM).
	chatTokenizeBody func(model string, msgs []map[string]string) any
	// tokenizeBody and detokenizeBody encode the requests; readTokens and
	// readText decode the answers.
	tokenizeBody   func(model, text string) any
	detokenizeBody func(model string, ids []int) any
	readTokens     func(b []byte) ([]int, error)
	readText       func(b []byte) (string, error)
}

// maxAuxBody bounds the answer of an auxiliary endpoint (8 MiB).
const maxAuxBody = 8 << 20

// post sends a JSON body to base+path and returns the answer's body, or
// an error naming the URL and status.
func post(ctx context.Context, hc *http.Client, base, path string, body any) ([]byte, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode %s request: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	return do(ctx, hc, http.MethodPost, Base(base)+path, rd)
}

// get fetches base+path.
func get(ctx context.Context, hc *http.Client, base, path string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, Base(base)+path, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s%s: %w", Base(base), path, err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s%s: %w", Base(base), path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAuxBody))
	if err != nil {
		return nil, resp.Header, fmt.Errorf("GET %s: read: %w", req.URL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return b, resp.Header, fmt.Errorf("GET %s: HTTP %d%s", req.URL, resp.StatusCode, snippet(b))
	}
	return b, resp.Header, nil
}

func do(ctx context.Context, hc *http.Client, method, u string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAuxBody))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read: %w", method, u, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return b, fmt.Errorf("%s %s: HTTP %d%s", method, u, resp.StatusCode, snippet(b))
	}
	return b, nil
}

// snippet is ": " and the first 120 printable bytes of b ("" when empty).
func snippet(b []byte) string {
	s := strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 {
			return ' '
		}
		return r
	}, string(b)))
	if s == "" {
		return ""
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return ": " + s
}

// Base normalises a server address: no trailing slash and no "/v1"
// suffix (OpenAI client base URLs often carry one).
func Base(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}

// CanTokenize reports whether the dialect has both tokenize and
// detokenize endpoints.
func (d *Dialect) CanTokenize() bool {
	return d != nil && d.Endpoints.Tokenize != "" && d.Endpoints.Detokenize != ""
}

// Tokenize returns the server's token ids for text (no special tokens
// added where the server lets the client say so).
func (d *Dialect) Tokenize(ctx context.Context, hc *http.Client, base, model, text string) ([]int, error) {
	e := &d.Endpoints
	if e.Tokenize == "" {
		return nil, fmt.Errorf("%s servers have no tokenize endpoint", d.Name)
	}
	b, err := post(ctx, hc, base, e.Tokenize, e.tokenizeBody(model, text))
	if err != nil {
		return nil, err
	}
	return e.readTokens(b)
}

// Detokenize returns the text of the server's token ids.
func (d *Dialect) Detokenize(ctx context.Context, hc *http.Client, base, model string, ids []int) (string, error) {
	e := &d.Endpoints
	if e.Detokenize == "" {
		return "", fmt.Errorf("%s servers have no detokenize endpoint", d.Name)
	}
	b, err := post(ctx, hc, base, e.Detokenize, e.detokenizeBody(model, ids))
	if err != nil {
		return "", err
	}
	return e.readText(b)
}

// tokensField decodes {"tokens": [...]} (vLLM and llama.cpp).
func tokensField(b []byte) ([]int, error) {
	var v struct {
		Tokens []int `json:"tokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("decode tokenize answer: %w", err)
	}
	return v.Tokens, nil
}

// textField returns a decoder of {"<name>": "..."}.
func textField(name string) func(b []byte) (string, error) {
	return func(b []byte) (string, error) {
		var v map[string]json.RawMessage
		if err := json.Unmarshal(b, &v); err != nil {
			return "", fmt.Errorf("decode detokenize answer: %w", err)
		}
		var s string
		if err := json.Unmarshal(v[name], &s); err != nil {
			return "", fmt.Errorf("detokenize answer has no %q string", name)
		}
		return s, nil
	}
}
