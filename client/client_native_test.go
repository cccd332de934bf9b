package client

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// TestNativeBody checks the native completion request body: prompt,
// n_predict, the llama.cpp extras, id_slot only when pinned, and none of
// the OpenAI-only fields.
func TestNativeBody(t *testing.T) {
	llamacpp, _ := dialect.Lookup(dialect.LlamaCpp)
	slot := 2
	tests := []struct {
		name  string
		o     Options
		req   traces.Request
		want  map[string]any
		unset []string
	}{
		{"text, 5 tokens", Options{API: APINative, Model: "m", Stream: true, Dialect: llamacpp},
			traces.Request{ID: "a", Prompt: "hi there", OutputTokens: 5},
			map[string]any{"prompt": "hi there", "n_predict": 5.0, "stream": true, "temperature": 0.0,
				"ignore_eos": true, "cache_prompt": true, "model": "m"},
			[]string{"max_tokens", "min_tokens", "stream_options", "messages", "id_slot"}},
		{"pinned slot, not streamed, default length", Options{API: APINative, Model: "m", Dialect: llamacpp},
			traces.Request{ID: "b", Prompt: "x", Slot: &slot},
			map[string]any{"prompt": "x", "stream": false, "id_slot": 2.0},
			[]string{"n_predict", "stream_options"}},
		{"token ids", Options{API: APINative, Model: "m", Dialect: llamacpp, TokenExact: true},
			traces.Request{ID: "c", TokenIDs: []int{5, 6, 7}, OutputTokens: 2},
			map[string]any{"prompt": []any{5.0, 6.0, 7.0}, "n_predict": 2.0}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(tc.o)
			defer c.Close()
			if p := c.endpoint(); p != "/completion" {
				t.Errorf("endpoint %s, want /completion", p)
			}
			raw, err := c.body(&tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if g, _ := json.Marshal(got[k]); string(g) != mustJSON(t, v) {
					t.Errorf("%s = %s, want %s (body %s)", k, g, mustJSON(t, v), raw)
				}
			}
			for _, k := range tc.unset {
				if _, ok := got[k]; ok {
					t.Errorf("body has %s: %s", k, raw)
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDecodeNative reads partial, final and error results.
func TestDecodeNative(t *testing.T) {
	tests := []struct {
		name, data   string
		content      bool
		finished     bool
		slot         int // −1: none
		predicted    int // −1: no usage
		evaluated    int
		cacheN       int // −1: no timings
		class, text  string
		errSubstring string
	}{
		{"partial", `{"index":0,"content":" tör","tokens":[15980],"stop":false,"id_slot":-1,"tokens_predicted":2,"tokens_evaluated":3}`,
			true, false, -1, 2, 3, -1, "", " tör", ""},
		{"partial with timings", `{"content":"a","stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":2,"timings":{"cache_n":1,"prompt_n":1,"prompt_ms":3.3,"predicted_n":1,"predicted_ms":0.001}}`,
			true, false, -1, 1, 2, 1, "", "a", ""},
		{"empty partial (split UTF-8)", `{"content":"","stop":false,"id_slot":-1,"tokens_predicted":4,"tokens_evaluated":3}`,
			false, false, -1, 4, 3, -1, "", "", ""},
		{"streamed final", `{"index":0,"content":"","tokens":[],"id_slot":1,"stop":true,"tokens_predicted":4,"tokens_evaluated":3,"stop_type":"limit","tokens_cached":6,"timings":{"cache_n":0,"prompt_n":3,"prompt_ms":5.1,"predicted_n":4,"predicted_ms":12.5}}`,
			false, true, 1, 4, 3, 0, "", "", ""},
		{"whole final", `{"content":"abc","id_slot":0,"stop":true,"tokens_predicted":3,"tokens_evaluated":4,"timings":{"cache_n":1,"prompt_n":3}}`,
			true, true, 0, 3, 4, 1, "", "abc", ""},
		{"error result", `{"error":{"code":500,"message":"slot unavailable","type":"server_error"}}`,
			false, false, -1, -1, 0, -1, results.ErrStreamError, "", "slot unavailable"},
		{"not JSON", `{"content":`, false, false, -1, -1, 0, -1, results.ErrBadPayload, "", "decode native"},
		{"array", `[{"content":"a"}]`, false, false, -1, -1, 0, -1, results.ErrBadPayload, "", "decode native"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, text, err := decodeNative([]byte(tc.data), "stream")
			if tc.class != "" {
				ce, ok := err.(*classedError)
				if !ok || ce.class != tc.class || !strings.Contains(err.Error(), tc.errSubstring) {
					t.Fatalf("err %v, want class %s containing %q", err, tc.class, tc.errSubstring)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.content != tc.content || info.finished != tc.finished || text != tc.text {
				t.Errorf("content %v finished %v text %q, want %v %v %q", info.content, info.finished, text, tc.content, tc.finished, tc.text)
			}
			if got := intOr(info.slot, -1); got != tc.slot {
				t.Errorf("slot %d, want %d", got, tc.slot)
			}
			if info.usage == nil || info.usage.CompletionTokens != tc.predicted || info.usage.PromptTokens != tc.evaluated {
				t.Errorf("usage %+v, want predicted %d evaluated %d", info.usage, tc.predicted, tc.evaluated)
			}
			cacheN := -1
			if info.timings != nil {
				cacheN = intOr(info.timings.CacheN, -1)
			}
			if cacheN != tc.cacheN {
				t.Errorf("timings.cache_n %d, want %d", cacheN, tc.cacheN)
			}
		})
	}
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// TestDoNative replays llama-server b7099's own /completion replies
// (captured from the CPU server, streamed and whole) over loopback HTTP:
// the request goes to /completion, and the Result has one chunk per
// content result, the counts, the server's timings and the slot of the
// final result.
func TestDoNative(t *testing.T) {
	llamacpp, _ := dialect.Lookup(dialect.LlamaCpp)
	tests := []struct {
		name, file, ct string
		stream         bool
		chunks, out    int
		prompt, cached int
		slot           int
		timings        results.ServerTimings
	}{
		{"streamed", filepath.Join("sse", "llamacpp_b7099_native.sse"), "text/event-stream", true, 4, 4, 3, 0, 1,
			results.ServerTimings{PromptN: 3, PromptMS: 5.152, PredictedN: 4, PredictedMS: 12.51}},
		{"whole", "llamacpp-b7099-native.json", "application/json; charset=utf-8", false, 1, 3, 4, 1, 1,
			results.ServerTimings{CacheN: 1, PromptN: 3, PromptMS: 4.964, PredictedN: 3, PredictedMS: 7.93}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			capture, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			base := captureServer(t, tc.ct, capture, func(r *http.Request, b map[string]any) {
				if r.URL.Path != "/completion" || b["n_predict"] != 4.0 || b["stream"] != tc.stream {
					t.Errorf("path %s body %v: want /completion, n_predict 4, stream %v", r.URL.Path, b, tc.stream)
				}
			})
			c := New(Options{API: APINative, Model: "m", Stream: tc.stream, Dialect: llamacpp})
			defer c.Close()
			var res results.Result
			tokens := 0
			c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "hello world", OutputTokens: 4},
				&res, ticking(), func(n int) { tokens += n })
			if !res.OK() {
				t.Fatalf("request failed: %s: %s", res.ErrClass, res.Err)
			}
			if res.Chunks != tc.chunks || res.CompletionTokens != tc.out || tokens != tc.out ||
				res.PromptTokens != tc.prompt || res.CachedTokens != tc.cached || res.NoCached {
				t.Errorf("chunks %d, completion %d, onTokens %d, prompt %d, cached %d (none %v); want %d, %d, %d, %d, %d",
					res.Chunks, res.CompletionTokens, tokens, res.PromptTokens, res.CachedTokens, res.NoCached,
					tc.chunks, tc.out, tc.out, tc.prompt, tc.cached)
			}
			if res.Slot == nil || *res.Slot != tc.slot {
				t.Errorf("slot %v, want %d", res.Slot, tc.slot)
			}
			if res.Server == nil || *res.Server != tc.timings {
				t.Errorf("server timings %+v, want %+v", res.Server, tc.timings)
			}
			if res.FirstToken <= 0 {
				t.Errorf("first token %v, want > 0", res.FirstToken)
			}
		})
	}
}

// TestDoNativeOutcomes checks the failing ends of a native exchange: a
// streamed error result, a stream cut before the final result, and an
// HTTP error with llama.cpp's error body.
func TestDoNativeOutcomes(t *testing.T) {
	partial := `data: {"content":"a","stop":false,"id_slot":-1,"tokens_predicted":1,"tokens_evaluated":2}` + "\n\n"
	tests := []struct {
		name, body, substr string
		status             int
		class              string
	}{
		{"error result", partial + `data: {"error":{"code":500,"message":"decode failed","type":"server_error"}}` + "\n\n",
			"decode failed", 200, results.ErrStreamError},
		{"cut before the final result", partial, "without [DONE] or finish_reason", 200, results.ErrStreamBroken},
		{"HTTP 400", `{"error":{"code":400,"message":"[json.exception.out_of_range.403] key 'prompt' not found","type":"invalid_request_error"}}`,
			"key 'prompt' not found", 400, results.ErrHTTP4xx},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := rawServerBody(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				ct := "text/event-stream"
				if tc.status != 200 {
					ct = "application/json; charset=utf-8"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			c := New(Options{API: APINative, Model: "m", Stream: true})
			defer c.Close()
			var res results.Result
			c.Do(context.Background(), base, &traces.Request{ID: "r", Prompt: "q", OutputTokens: 5}, &res, ticking(), nil)
			if res.ErrClass != tc.class || !strings.Contains(res.Err, tc.substr) {
				t.Fatalf("class %q err %q: want class %q containing %q", res.ErrClass, res.Err, tc.class, tc.substr)
			}
		})
	}
}
