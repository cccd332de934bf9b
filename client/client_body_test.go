package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/internal/fakesse"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

func TestRequestBody(t *testing.T) {
	two := 2
	llama, _ := dialect.Lookup(dialect.LlamaCpp)
	streamOpts := map[string]any{"include_usage": true}
	tests := []struct {
		name string
		opts Options
		req  traces.Request
		want map[string]any
	}{
		{"completions text", Options{Model: "m", Stream: true},
			traces.Request{Prompt: "hi there", OutputTokens: 7},
			map[string]any{"model": "m", "prompt": "hi there", "max_tokens": 7.0, "min_tokens": 7.0,
				"ignore_eos": true, "stream": true, "stream_options": streamOpts, "temperature": 0.0}},
		{"completions token ids", Options{Model: "m", Stream: true, TokenExact: true},
			traces.Request{TokenIDs: []int{5, 6, 7}, Prompt: "ignored", OutputTokens: 1},
			map[string]any{"model": "m", "prompt": []any{5.0, 6.0, 7.0}, "max_tokens": 1.0, "min_tokens": 1.0,
				"ignore_eos": true, "stream": true, "stream_options": streamOpts, "temperature": 0.0}},
		{"token ids as text when not token-exact", Options{Model: "m"},
			traces.Request{TokenIDs: []int{5, 6}, Prompt: "as text"},
			map[string]any{"model": "m", "prompt": "as text", "ignore_eos": true, "stream": false, "temperature": 0.0}},
		{"request model and LoRA win", Options{Model: "base"},
			traces.Request{Model: "other", LoRA: "sql-lora", Prompt: "x"},
			map[string]any{"model": "sql-lora", "prompt": "x", "ignore_eos": true, "stream": false, "temperature": 0.0}},
		{"chat messages", Options{API: APIChat, Model: "m", Stream: true},
			traces.Request{Messages: []traces.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}},
				OutputTokens: 3},
			map[string]any{"model": "m", "messages": []any{map[string]any{"role": "system", "content": "s"},
				map[string]any{"role": "user", "content": "u"}}, "max_tokens": 3.0, "min_tokens": 3.0,
				"ignore_eos": true, "stream": true, "stream_options": streamOpts, "temperature": 0.0}},
		{"chat from a text prompt", Options{API: APIChat, Model: "m"},
			traces.Request{Prompt: "only text", OutputTokens: 2},
			map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": "only text"}},
				"max_tokens": 2.0, "min_tokens": 2.0, "ignore_eos": true, "stream": false, "temperature": 0.0}},
		{"slot to llama.cpp as id_slot", Options{Model: "m", Dialect: llama},
			traces.Request{Prompt: "x", OutputTokens: 2, Slot: &two},
			map[string]any{"model": "m", "prompt": "x", "max_tokens": 2.0, "ignore_eos": true, "cache_prompt": true,
				"id_slot": 2.0, "stream": false, "temperature": 0.0}},
		{"no slot field to vLLM", Options{Model: "m"},
			traces.Request{Prompt: "x", OutputTokens: 2, Slot: &two},
			map[string]any{"model": "m", "prompt": "x", "max_tokens": 2.0, "min_tokens": 2.0, "ignore_eos": true,
				"stream": false, "temperature": 0.0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.opts)
			b, err := c.body(&tc.req)
			if err != nil {
				t.Fatalf("body: %v", err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBlockIDsGoAsTokens(t *testing.T) {
	req := &traces.Request{BlockIDs: []uint64{1, 2}, BlockSize: 4, InputTokens: 6}
	c := New(Options{TokenExact: true})
	if got, want := c.prompt(req), traces.PromptTokens(req); !cmp.Equal(got, want) {
		t.Fatalf("prompt = %v, want token ids %v", got, want)
	}
}

// TestSynthPromptGoesAsTokens: a generated prompt of synthetic words is
// sent as the ids it spells to servers that take token-id prompts, and
// as text to a plain OpenAI-compatible server or without TokenExact.
func TestSynthPromptGoesAsTokens(t *testing.T) {
	text := traces.SynthWords(7, 12)
	ids, _ := traces.SynthIDs(text)
	openai, _ := dialect.Lookup(dialect.OpenAI)
	llama, _ := dialect.Lookup(dialect.LlamaCpp)
	for _, tc := range []struct {
		name string
		o    Options
		want any
	}{
		{"vllm", Options{TokenExact: true}, ids},
		{"llamacpp", Options{TokenExact: true, Dialect: llama}, ids},
		{"openai", Options{TokenExact: true, Dialect: openai}, text},
		{"not token-exact", Options{}, text},
	} {
		c := New(tc.o)
		if got := c.prompt(&traces.Request{Prompt: text, InputTokens: 12}); !cmp.Equal(got, tc.want) {
			t.Errorf("%s: prompt = %v, want %v", tc.name, got, tc.want)
		}
	}
	c := New(Options{TokenExact: true})
	if got := c.prompt(&traces.Request{Prompt: "hello there"}); got != "hello there" {
		t.Errorf("real text went as %v", got)
	}
}

// TestHeadersAndKey checks the request line and headers a server sees,
// and that a key echoed back by the server never reaches Result.Err.
func TestHeadersAndKey(t *testing.T) {
	const key = "sk-very-secret"
	seen := make(chan *http.Request, 1)
	srv := fakesse.RawServer(t, func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Clone(context.Background())
		http.Error(w, "rejected "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	})
	c := New(Options{API: APIChat, APIKey: key, Stream: true, Headers: map[string]string{"X-Tenant": "t1"}})
	defer c.Close()
	var clk vclock
	var res results.Result
	c.Do(context.Background(), srv.URL+"/v1", &traces.Request{ID: "k"}, &res, clk.now, nil)
	checkOutcome(t, &res, results.ErrHTTP4xx, "HTTP 401")
	got := <-seen
	if strings.Contains(res.Err, key) || !strings.Contains(res.Err, "[redacted]") {
		t.Errorf("Err = %q: key not redacted", res.Err)
	}
	for h, want := range map[string]string{"Authorization": "Bearer " + key, "X-Tenant": "t1",
		"Content-Type": "application/json", "Accept": "text/event-stream"} {
		if v := got.Header.Get(h); v != want {
			t.Errorf("header %s = %q, want %q", h, v, want)
		}
	}
	if got.Method != http.MethodPost || got.URL.Path != "/v1/chat/completions" || got.ProtoMajor != 1 {
		t.Errorf("request = %s %s %s, want POST /v1/chat/completions HTTP/1.x", got.Method, got.URL.Path, got.Proto)
	}
}

// TestCredentialHeadersRedacted checks that values of credential headers
// given with --header, echoed back by a server, reach neither Result.Err
// nor the ListModels error, while other header values stay readable.
func TestCredentialHeadersRedacted(t *testing.T) {
	srv := fakesse.RawServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "auth="+r.Header.Get("Authorization")+" key="+r.Header.Get("X-Api-Key")+
			" tenant="+r.Header.Get("X-Tenant"), http.StatusUnauthorized)
	})
	c := New(Options{Stream: true, Headers: map[string]string{
		"Authorization": "Bearer hdr-secret-1", "X-Api-Key": "xk-secret-2", "X-Tenant": "t1"}})
	defer c.Close()
	var clk vclock
	var res results.Result
	c.Do(context.Background(), srv.URL, &traces.Request{ID: "h"}, &res, clk.now, nil)
	_, modelsErr := ListModels(context.Background(), c, srv.URL)
	for name, text := range map[string]string{"Result.Err": res.Err, "ListModels": fmt.Sprint(modelsErr)} {
		if strings.Contains(text, "secret") || !strings.Contains(text, "tenant=t1") {
			t.Errorf("%s = %q: want credentials redacted and the tenant kept", name, text)
		}
	}
}
