package client

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
	"github.com/tracebench/tracebench/results"
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
		c := New(Options{API: APIChat, TokenExact: true, Dialect: d, Model: "m"})
		req := &traces.Request{ID: "r", Messages: []traces.Message{{Role: "user", Content: traces.SynthWords(3, 5)}}, OutputTokens: 1}
		for range 2 {
			var res results.Result
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

// TestChatTemplateTrimmed: the chat template's tokens, counted once per
// server and role sequence, come off the generated contents from the
// last message backwards, each keeping a token, so the templated prompt
// comes to the trace's count.
func TestChatTemplateTrimmed(t *testing.T) {
	var applied atomic.Int64
	var sent atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var v struct {
			Tokens     []int
			Content    string
			AddSpecial bool `json:"add_special"`
			Messages   []traces.Message
		}
		_ = json.Unmarshal(b, &v)
		switch r.URL.Path {
		case "/apply-template":
			applied.Add(1)
			roles := make([]string, len(v.Messages))
			for i, m := range v.Messages {
				roles[i] = m.Role
			}
			_, _ = io.WriteString(w, `{"prompt":"T `+strings.Join(roles, " ")+`"}`)
		case "/tokenize": // the template: 1 + a token per role, +1 with special tokens; texts: their x's
			n := strings.Count(v.Content, "x")
			if strings.HasPrefix(v.Content, "T ") {
				n = len(strings.Fields(v.Content))
				if v.AddSpecial {
					n++
				}
			}
			_, _ = io.WriteString(w, `{"tokens":[`+strings.TrimSuffix(strings.Repeat("7,", n), ",")+`]}`)
		case "/detokenize":
			_, _ = io.WriteString(w, `{"content":"`+strings.Repeat("x", len(v.Tokens))+`"}`)
		case "/v1/chat/completions":
			sent.Store(string(b))
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"a"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	now := func() time.Duration { return time.Millisecond }
	d, _ := dialect.Lookup(dialect.LlamaCpp)
	c := New(Options{API: APIChat, TokenExact: true, Dialect: d, Model: "m"})
	defer c.Close()
	tests := []struct {
		name string
		msgs []traces.Message
		want []string // contents sent; template cost = roles + 2
	}{
		// cost 4: the user message keeps 1 of 3, the system message gives 2 of 5.
		{"two messages", []traces.Message{{Role: "system", Content: traces.SynthWords(1, 5)},
			{Role: "user", Content: traces.SynthWords(2, 3)}}, []string{"xxx", "x"}},
		// cost 3 off 10 tokens.
		{"one message", []traces.Message{{Role: "user", Content: traces.SynthWords(3, 10)}}, []string{"xxxxxxx"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			applied.Store(0)
			req := &traces.Request{ID: "r", Messages: tc.msgs, OutputTokens: 1}
			for range 2 {
				var res results.Result
				c.Do(context.Background(), srv.URL, req, &res, now, nil)
				if !res.OK() {
					t.Fatalf("%s %s", res.ErrClass, res.Err)
				}
			}
			var body struct{ Messages []traces.Message }
			_ = json.Unmarshal([]byte(sent.Load().(string)), &body)
			var got []string
			for _, m := range body.Messages {
				got = append(got, m.Content)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
			if applied.Load() != 1 {
				t.Errorf("%d template counts for two requests, want 1 (cached)", applied.Load())
			}
		})
	}
}
