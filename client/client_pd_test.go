package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// fakeServer answers every request with status and body.
func fakeServer(t *testing.T, status int, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestDoPDFailures: a prefill answer without kv_transfer_params is its
// own error class and the request is decoded alone once; a failed
// prefill fails the request with the prefill's class; a decode that
// fails after a good prefill keeps the prefill's figures.
func TestDoPDFailures(t *testing.T) {
	mock := startMock(t, mockserver.FaultConfig{})
	noKV := fakeServer(t, 200, `{"choices":[{"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":2}}}`)
	down := fakeServer(t, 503, `{"error":"overloaded"}`)
	badDecode := fakeServer(t, 400, `{"error":"kv_transfer_params.remote_block_ids: unknown"}`)
	tests := []struct {
		name, prefill, decode  string
		wantClass, wantPDClass string
		fallback               bool
	}{
		{"answer without params", noKV, mock, "", results.ErrNoKVParams, true},
		{"prefill down", down, mock, results.ErrHTTP5xx, results.ErrHTTP5xx, false},
		{"decode refuses the transfer", mock, badDecode, results.ErrHTTP4xx, "", false},
	}
	c := client.New(client.Options{Stream: true, TokenExact: true, Model: "mock-model"})
	defer c.Close()
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &traces.Request{ID: "r", Prompt: "a b c d e f g h", InputTokens: 8, OutputTokens: 4}
			res := &results.Result{PD: &results.PrefillPhase{Protocol: results.PDTwoStep}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			prefillEnded := false
			c.DoPD(ctx, tt.prefill, tt.decode, req, res, now, nil, func() { prefillEnded = true })
			if res.ErrClass != tt.wantClass || res.PD.ErrClass != tt.wantPDClass || res.PD.Fallback != tt.fallback {
				t.Fatalf("class %q (%s), prefill class %q (%s), fallback %v; want %q, %q, %v",
					res.ErrClass, res.Err, res.PD.ErrClass, res.PD.Err, res.PD.Fallback, tt.wantClass, tt.wantPDClass, tt.fallback)
			}
			if !prefillEnded || res.PD.Sent == 0 || res.PD.Done < res.PD.Sent || res.Sent != res.PD.Sent || res.Done < res.PD.Done {
				t.Errorf("times: prefill %v..%v, sent %v, done %v, prefill end seen %v", res.PD.Sent, res.PD.Done, res.Sent, res.Done, prefillEnded)
			}
			if tt.wantClass == "" && res.CompletionTokens != 4 {
				t.Errorf("fallback decode gave %d tokens, want 4", res.CompletionTokens)
			}
			if tt.name == "decode refuses the transfer" && !strings.Contains(res.Err, "remote_block_ids") {
				t.Errorf("error %q: want the decode server's message", res.Err)
			}
		})
	}
}
