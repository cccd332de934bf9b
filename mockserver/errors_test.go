package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
)

func TestRequestErrors(t *testing.T) {
	opts := fastOptions()
	opts.Engine.MaxModelLen = 64
	opts.StrictModel = true
	_, base := startServer(t, opts)
	tests := []struct {
		name, path, body string
		status           int
		msg              string
	}{
		{"prompt too long", "/v1/completions", `{"prompt":` + tokenPrompt(60, 1) + `,"max_tokens":10}`, 400,
			"maximum context length is 64 tokens. However, you requested 70 tokens (60 in the messages, 10 in the completion)"},
		{"prompt fills the context", "/v1/completions", `{"prompt":` + tokenPrompt(64, 1) + `}`, 400, "maximum context length"},
		{"token out of vocabulary", "/v1/completions", `{"prompt":[1,100256]}`, 400, "Token id 100256 is out of vocabulary"},
		{"empty prompt", "/v1/completions", `{"prompt":""}`, 400, "Prompt cannot be empty"},
		{"no prompt", "/v1/completions", `{"max_tokens":3}`, 400, "prompt: field required"},
		{"batched prompts", "/v1/completions", `{"prompt":["a","b"]}`, 400, "batched prompts"},
		{"bad JSON", "/v1/completions", `{"prompt":`, 400, "invalid JSON body"},
		{"wrong type", "/v1/completions", `{"prompt":"a","max_tokens":"3"}`, 400, "max_tokens: want int"},
		{"max_tokens 0", "/v1/completions", `{"prompt":"a","max_tokens":0}`, 400, "max_tokens must be at least 1"},
		{"min over max", "/v1/completions", `{"prompt":"a","max_tokens":2,"min_tokens":3}`, 400, "min_tokens must be less than or equal"},
		{"stream options without stream", "/v1/completions", `{"prompt":"a","stream_options":{"include_usage":true}}`, 400,
			"Stream options can only be defined when `stream=True`."},
		{"n > 1", "/v1/completions", `{"prompt":"a","n":2}`, 400, "n=2 is not supported"},
		{"unknown model", "/v1/completions", `{"model":"other","prompt":"a"}`, 404, "The model `other` does not exist."},
		{"no messages", "/v1/chat/completions", `{"messages":[]}`, 400, "at least one message"},
		{"bad content", "/v1/chat/completions", `{"messages":[{"role":"user","content":5}]}`, 400, "messages[0].content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, h, b := post(t, base+tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("status %d, want %d: %s", code, tc.status, b)
			}
			var e apiError
			if err := json.Unmarshal([]byte(b), &e); err != nil || h.Get("Content-Type") != "application/json" {
				t.Fatalf("error body %q (%v)", b, err)
			}
			if !strings.Contains(e.Error.Message, tc.msg) || e.Error.Code != tc.status || e.Error.Type != errorType(tc.status) {
				t.Fatalf("error %+v, want message containing %q", e.Error, tc.msg)
			}
		})
	}
	if code, _, _ := get(t, base+"/v1/completions"); code != http.StatusMethodNotAllowed {
		t.Fatalf("GET /v1/completions: %d, want 405", code)
	}
}

func TestLoRAModelKeepsItsOwnCache(t *testing.T) {
	_, base := startServer(t, fastOptions())
	p := tokenPrompt(40, 5)
	var cached []int
	for _, model := range []string{"mock-model", "adapter-a", "adapter-a", "mock-model"} {
		_, _, b := post(t, base+"/v1/completions", `{"model":"`+model+`","prompt":`+p+`,"max_tokens":1}`)
		var r struct {
			Model string `json:"model"`
			Usage usage  `json:"usage"`
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil || r.Model != model {
			t.Fatalf("response %s", b)
		}
		cached = append(cached, r.Usage.PromptTokensDetails.CachedTokens)
	}
	if want := []int{0, 0, 32, 32}; !equalInts(cached, want) {
		t.Fatalf("cached %v, want %v (an adapter does not share the base model's blocks)", cached, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestQueueFullGets429(t *testing.T) {
	opts := fastOptions()
	opts.Engine.MaxNumSeqs, opts.MaxQueue = 1, 1
	_, base := startServer(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := `{"prompt":"a","max_tokens":5000,"stream":true}`
	started := make(chan struct{})
	go func() { // runs: holds the single batch slot
		close(started)
		_, _, _ = sse(t, ctx, base+"/v1/completions", long)
	}()
	<-started
	waitMetric(t, base, func(m map[string]float64) bool { return m["vllm:num_requests_running"] == 1 })
	go func() { _, _, _ = sse(t, ctx, base+"/v1/completions", long) }() // waits
	waitMetric(t, base, func(m map[string]float64) bool { return m["vllm:num_requests_waiting"] == 1 })
	code, h, b := post(t, base+"/v1/completions", `{"prompt":"a","max_tokens":1}`)
	if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(b, "RateLimitError") {
		t.Fatalf("status %d, Retry-After %q: %s", code, h.Get("Retry-After"), b)
	}
	cancel()
	m := waitMetric(t, base, func(m map[string]float64) bool {
		return m["vllm:request_success_total{finished_reason=abort}"] == 2
	})
	if m["vllm:kv_cache_usage_perc"] != 0 || m["vllm:num_requests_running"] != 0 {
		t.Fatalf("after aborts: %v", m)
	}
}

func TestOptionsValidate(t *testing.T) {
	bad := []Options{
		{TimeScale: -1},
		{MaxQueue: -1},
		{Tokenizer: "sentencepiece"},
		{Faults: FaultConfig{ErrorRate: 2}},
		{Faults: FaultConfig{ErrorStatus: 418}},
		{Engine: engine.Config{BlockSize: 16}},
	}
	for i, o := range bad {
		if _, err := NewServer(o); err == nil {
			t.Errorf("options %d (%+v): want error", i, o)
		}
	}
}
