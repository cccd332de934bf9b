package replay

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/traces"
)

// TestChatDetokenized: a chat request with generated contents goes with
// the server's text of their token ids (detokenized once per content);
// a server without /detokenize gets the synthetic words, after one try.
func TestChatDetokenized(t *testing.T) {
	var detok atomic.Int64
	var sent atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/detokenize":
			detok.Add(1)
			var v struct{ Tokens []int }
			_ = json.Unmarshal(b, &v)
			_, _ = io.WriteString(w, `{"content":"server text of `+strings.Repeat("x", len(v.Tokens))+`"}`)
		case "/v1/chat/completions":
			sent.Store(string(b))
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"a"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	now := func() time.Duration { return time.Millisecond }
	for _, tc := range []struct {
		dialect  string
		want     string
		detokens int64
	}{
		{dialect.LlamaCpp, "server text of xxxxx", 1},
		{dialect.VLLM, traces.SynthWords(3, 5), 1}, // an answer without vLLM's "prompt" field fails
		{dialect.OpenAI, traces.SynthWords(3, 5), 0},
	} {
		detok.Store(0)
		d, _ := dialect.Lookup(tc.dialect)
		c := NewClient(ClientOptions{API: APIChat, TokenExact: true, Dialect: d, Model: "m"})
		req := &traces.Request{ID: "r", Messages: []traces.Message{{Role: "user", Content: traces.SynthWords(3, 5)}}, OutputTokens: 1}
		for range 2 {
			var res Result
			c.Do(context.Background(), srv.URL, req, &res, now, nil)
			if !res.OK() {
				t.Fatalf("%s: %s %s", tc.dialect, res.ErrClass, res.Err)
			}
		}
		var body struct{ Messages []traces.Message }
		_ = json.Unmarshal([]byte(sent.Load().(string)), &body)
		if len(body.Messages) != 1 || body.Messages[0].Content != tc.want {
			t.Errorf("%s: sent %+v, want content %q", tc.dialect, body.Messages, tc.want)
		}
		if detok.Load() != tc.detokens {
			t.Errorf("%s: %d detokenize calls for two requests, want %d", tc.dialect, detok.Load(), tc.detokens)
		}
		c.Close()
	}
}
