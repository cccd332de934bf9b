package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// captureServer is a loopback server that checks each request with
// check, then answers with body under content type ct.
func captureServer(t *testing.T, ct string, body []byte, check func(r *http.Request, b map[string]any)) string {
	t.Helper()
	srv := rawServerBody(t, func(w http.ResponseWriter, r *http.Request, raw []byte) {
		var b map[string]any
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Errorf("request body %q: %v", raw, err)
		}
		check(r, b)
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(body)
	})
	return srv
}

// rawServerBody is a loopback server running h with the request body.
func rawServerBody(t *testing.T, h func(w http.ResponseWriter, r *http.Request, body []byte)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h(w, r, b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// ticking is a clock that moves 1 ms at every reading.
func ticking() func() time.Duration {
	var clk vclock
	return func() time.Duration { clk.advance(time.Millisecond); return clk.now() }
}

// TestDoResponsesAPI sends a Responses API request over loopback HTTP
// and reads vLLM's event stream: the request goes to /v1/responses with
// input messages, max_output_tokens and ignore_eos (no min_tokens, no
// stream_options), and the Result has the reasoning, the first output
// and the usage of response.completed.
func TestDoResponsesAPI(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join("testdata", "sse", "vllm_responses.sse"))
	if err != nil {
		t.Fatal(err)
	}
	base := captureServer(t, "text/event-stream; charset=utf-8", capture, func(r *http.Request, b map[string]any) {
		if r.URL.Path != "/v1/responses" {
			t.Errorf("path %s, want /v1/responses", r.URL.Path)
		}
		for _, k := range []string{"min_tokens", "max_tokens", "stream_options", "prompt", "messages"} {
			if _, ok := b[k]; ok {
				t.Errorf("body has %s: %v", k, b)
			}
		}
		in, _ := b["input"].([]any)
		if b["max_output_tokens"] != 7.0 || b["ignore_eos"] != true || b["stream"] != true || len(in) != 1 {
			t.Errorf("body %v: want max_output_tokens 7, ignore_eos, stream and one input message", b)
		}
	})
	vllm, _ := dialect.Lookup(dialect.VLLM)
	c := New(Options{API: APIResponses, Model: "m", Stream: true, Dialect: vllm})
	defer c.Close()
	var res results.Result
	tokens := 0
	c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "capital of France?", OutputTokens: 7},
		&res, ticking(), func(n int) { tokens += n })
	if !res.OK() {
		t.Fatalf("request failed: %s: %s", res.ErrClass, res.Err)
	}
	if res.Chunks != 5 || res.ReasoningTokens != 4 || res.CompletionTokens != 7 || res.PromptTokens != 13 ||
		res.NoCached || tokens != 5 {
		t.Errorf("chunks %d, reasoning %d, completion %d, prompt %d, no cached %v, onTokens %d; want 5, 4, 7, 13, false, 5",
			res.Chunks, res.ReasoningTokens, res.CompletionTokens, res.PromptTokens, res.NoCached, tokens)
	}
	if !(res.FirstToken > 0 && res.FirstOutput > res.FirstToken) {
		t.Errorf("first token %v, first output %v: want the output after the reasoning", res.FirstToken, res.FirstOutput)
	}
}

// TestDoResponsesAPIOutcomes checks the other ends of a Responses API
// exchange: a non-streamed response object, a failed response, an
// error event and a stream cut before response.completed.
func TestDoResponsesAPIOutcomes(t *testing.T) {
	whole := `{"id":"resp_1","object":"response","status":"completed","output":[` +
		`{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"hm"}]},` +
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris","annotations":[]}]}],` +
		`"usage":{"input_tokens":9,"input_tokens_details":{"cached_tokens":8},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":14}}`
	tests := []struct {
		name, ct, body string
		stream         bool
		class          string
		check          func(r *results.Result) bool
	}{
		{"non-streamed", "application/json", whole, false, "", func(r *results.Result) bool {
			return r.FirstOutput > 0 && r.ReasoningTokens == 3 && r.CompletionTokens == 5 && r.CachedTokens == 8
		}},
		{"failed", "text/event-stream", `data: {"type":"response.output_text.delta","delta":"a"}` + "\n\n" +
			`data: {"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"engine died"}}}` + "\n\n",
			true, results.ErrStreamError, func(r *results.Result) bool { return strings.Contains(r.Err, "engine died") }},
		{"error event", "text/event-stream", "event: error\ndata: {\"type\":\"error\",\"message\":\"bad\"}\n\n", true,
			results.ErrStreamError, func(r *results.Result) bool { return strings.Contains(r.Err, "bad") }},
		{"cut before completed", "text/event-stream", `data: {"type":"response.output_text.delta","delta":"a"}` + "\n\n", true,
			results.ErrStreamBroken, func(r *results.Result) bool { return r.Chunks == 1 }},
		{"not JSON", "text/event-stream", "data: {oops\n\n", true, results.ErrBadPayload, func(*results.Result) bool { return true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := captureServer(t, tc.ct, []byte(tc.body), func(*http.Request, map[string]any) {})
			c := New(Options{API: APIResponses, Model: "m", Stream: tc.stream})
			defer c.Close()
			var res results.Result
			c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "q", OutputTokens: 5}, &res, ticking(), nil)
			if res.ErrClass != tc.class || !tc.check(&res) {
				t.Fatalf("class %q err %q, result %+v: want class %q", res.ErrClass, res.Err, res, tc.class)
			}
		})
	}
}

// TestDoReasoningTagsOverHTTP reads a completions stream of a reasoning
// model over loopback HTTP with and without Options.ReasoningTags.
func TestDoReasoningTagsOverHTTP(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join("testdata", "sse", "vllm_completions_think_tags.sse"))
	if err != nil {
		t.Fatal(err)
	}
	base := captureServer(t, "text/event-stream", capture, func(*http.Request, map[string]any) {})
	for _, tags := range []bool{false, true} {
		c := New(Options{Model: "m", Stream: true, ReasoningTags: tags})
		var res results.Result
		c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "q", OutputTokens: 8}, &res, ticking(), nil)
		c.Close()
		wantReasoning := 0
		if tags {
			wantReasoning = 5
		}
		if !res.OK() || res.ReasoningTokens != wantReasoning || (res.FirstOutput > res.FirstToken) != tags {
			t.Errorf("tags %v: %s %s, reasoning %d (want %d), first token %v, first output %v",
				tags, res.ErrClass, res.Err, res.ReasoningTokens, wantReasoning, res.FirstToken, res.FirstOutput)
		}
	}
}

func TestValidAPI(t *testing.T) {
	for _, api := range append(APIs(), "") {
		if !ValidAPI(api) {
			t.Errorf("ValidAPI(%q) = false", api)
		}
	}
	for _, api := range []string{"Chat", "response", "embeddings"} {
		if ValidAPI(api) {
			t.Errorf("ValidAPI(%q) = true", api)
		}
	}
}
