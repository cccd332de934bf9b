package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	runmetrics "github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver"
)

// TestPlainHTTPClient drives the gateway with Go's own net/http client
// (no tracebench code on the client side): completions and chat, each
// streamed and not, /v1/models and /health. Every answer is the mock's,
// passed through; every request is in the results file, timed at the
// gateway, with the server's cached tokens, and the report reads it.
func TestPlainHTTPClient(t *testing.T) {
	tg := startGateway(t, startMocks(t, 2, mockserver.Options{}), gwConfig{router: "prefix-cache"})
	sys := strings.Repeat("you are a helpful assistant who answers briefly ", 8)
	tests := []struct {
		name, path, body string
		stream           bool
	}{
		{"completions", "/v1/completions", `{"model":"mock-model","prompt":"` + sys + `one","max_tokens":4}`, false},
		{"completions streamed", "/v1/completions", `{"model":"mock-model","prompt":"` + sys + `two","max_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`, true},
		{"chat", "/v1/chat/completions", `{"model":"mock-model","messages":[{"role":"system","content":"` + sys + `"},{"role":"user","content":"three"}],"max_tokens":3}`, false},
		{"chat streamed", "/v1/chat/completions", `{"model":"mock-model","messages":[{"role":"system","content":"` + sys + `"},{"role":"user","content":[{"type":"text","text":"four"}]}],"max_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`, true},
		{"token ids", "/v1/completions", `{"model":"mock-model","prompt":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18],"max_tokens":2}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, hdr, body := post(t, tg.url+tc.path, tc.body, nil)
			if code != http.StatusOK {
				t.Fatalf("status %d: %s", code, body)
			}
			if got := strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream"); got != tc.stream {
				t.Errorf("content type %q, streamed %v", hdr.Get("Content-Type"), tc.stream)
			}
			if tc.stream && !strings.HasSuffix(strings.TrimSpace(body), "data: [DONE]") {
				t.Errorf("stream does not end with [DONE]:\n%s", body)
			}
			if !tc.stream {
				var v struct {
					Choices []json.RawMessage `json:"choices"`
				}
				if err := json.Unmarshal([]byte(body), &v); err != nil || len(v.Choices) != 1 {
					t.Errorf("answer is not one completion (%v): %s", err, body)
				}
			}
		})
	}
	for _, path := range []string{"/v1/models", "/health"} {
		resp, err := http.Get(tg.url + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		if path == "/v1/models" && !strings.Contains(string(b), `"owned_by":"vllm"`) {
			t.Errorf("/v1/models is not the backend's answer: %s", b)
		}
	}
	tg.shutdown()
	res := readResults(t, tg.results)
	if len(res) != len(tests) {
		t.Fatalf("%d results for %d requests", len(res), len(tests))
	}
	cached := 0
	for _, r := range res {
		if !r.OK() || r.NoCached || r.FirstToken <= r.Sent || r.Sent < r.Intended || r.Done < r.FirstToken {
			t.Errorf("result %s: class %q no_cached %v, times intended %v sent %v first %v done %v",
				r.ID, r.ErrClass, r.NoCached, r.Intended, r.Sent, r.FirstToken, r.Done)
		}
		cached += r.CachedTokens
	}
	if cached == 0 {
		t.Error("no cached tokens recorded: the shared system prompt never hit")
	}
	sum, err := runmetrics.Summarize(tg.results, runmetrics.DefaultOptions())
	if err != nil {
		t.Fatalf("report cannot read the gateway's results: %v", err)
	}
	if sum.Requests != int64(len(tests)) || sum.Stop == nil || sum.Stop.Reason != "done" {
		t.Errorf("report: %d requests, stop %+v", sum.Requests, sum.Stop)
	}
}
