package mockserver

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestInjectedErrors(t *testing.T) {
	for _, status := range []int{429, 500, 503} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			opts := fastOptions()
			opts.Faults = FaultConfig{ErrorRate: 1, ErrorStatus: status, RetryAfter: 1500 * time.Millisecond}
			_, base := startServer(t, opts)
			code, h, b := post(t, base+"/v1/completions", `{"prompt":"a","max_tokens":1}`)
			if code != status || h.Get("Retry-After") != "2" || !strings.Contains(b, errorType(status)) {
				t.Fatalf("status %d Retry-After %q body %s; want %d, 2", code, h.Get("Retry-After"), b, status)
			}
			if m := scrape(t, base); m["tracebench_mock_faults_total{fault=error}"] != 1 {
				t.Fatalf("fault counter: %v", m)
			}
		})
	}
}

func TestErrorRateIsSeeded(t *testing.T) {
	run := func() string {
		opts := fastOptions()
		opts.Faults = FaultConfig{ErrorRate: 0.5}
		_, base := startServer(t, opts)
		var sb strings.Builder
		for range 20 {
			code, _, _ := post(t, base+"/v1/completions", `{"prompt":"a","max_tokens":1}`)
			sb.WriteString(http.StatusText(code)[:1])
		}
		return sb.String()
	}
	a, b := run(), run()
	if a != b || !strings.Contains(a, "O") || !strings.Contains(a, "S") {
		t.Fatalf("outcomes %s then %s: want the same mix of OK and Service Unavailable", a, b)
	}
}

func TestMidStreamDisconnect(t *testing.T) {
	opts := fastOptions()
	opts.Faults = FaultConfig{DisconnectRate: 1, DisconnectAfter: 3}
	_, base := startServer(t, opts)
	_, chunks, err := sse(t, context.Background(), base+"/v1/completions", `{"prompt":"a","max_tokens":10,"stream":true}`)
	if err == nil && len(chunks) > 0 && chunks[len(chunks)-1].data == "[DONE]" {
		t.Fatal("stream finished; want a cut")
	}
	if len(chunks) != 3 {
		t.Fatalf("%d chunks before the cut, want 3", len(chunks))
	}
	waitMetric(t, base, func(m map[string]float64) bool {
		return m["vllm:request_success_total{finished_reason=abort}"] == 1 && m["vllm:kv_cache_usage_perc"] == 0
	})
}

func TestClientDisconnectAbortsAndFreesBlocks(t *testing.T) {
	_, base := startServer(t, fastOptions())
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/completions",
		strings.NewReader(`{"prompt":`+tokenPrompt(200, 3)+`,"max_tokens":5000,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for range 2 { // two token chunks
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	if m := scrape(t, base); m["vllm:kv_cache_usage_perc"] == 0 || m["vllm:num_requests_running"] != 1 {
		t.Fatalf("while streaming: %v", m)
	}
	cancel()
	resp.Body.Close()
	waitMetric(t, base, func(m map[string]float64) bool {
		return m["vllm:request_success_total{finished_reason=abort}"] == 1 &&
			m["vllm:kv_cache_usage_perc"] == 0 && m["vllm:num_requests_running"] == 0
	})
}

func TestRefusedConnections(t *testing.T) {
	opts := fastOptions()
	opts.Faults = FaultConfig{RefuseRate: 1}
	_, base := startServer(t, opts)
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Post(base+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a"}`))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("status %d; want a connection error", resp.StatusCode)
	}
}

func TestSlowFirstByteAndStall(t *testing.T) {
	tests := []struct {
		name     string
		faults   FaultConfig
		minTTFT  time.Duration
		minTotal time.Duration
	}{
		{"slow first byte 60 ms", FaultConfig{SlowFirstByteRate: 1, SlowFirstByte: 60 * time.Millisecond}, 60 * time.Millisecond, 0},
		{"every step stalls 30 ms", FaultConfig{StallRate: 1, Stall: 30 * time.Millisecond}, 30 * time.Millisecond, 90 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := fastOptions()
			opts.Faults = tc.faults
			_, base := startServer(t, opts)
			start := time.Now()
			_, chunks, err := sse(t, context.Background(), base+"/v1/completions", `{"prompt":"a","max_tokens":4,"stream":true}`)
			if err != nil || len(chunks) != 5 {
				t.Fatalf("%d chunks, %v", len(chunks), err)
			}
			if ttft := chunks[0].at.Sub(start); ttft < tc.minTTFT {
				t.Fatalf("TTFT %v, want ≥ %v", ttft, tc.minTTFT)
			}
			if total := chunks[3].at.Sub(chunks[0].at); total < tc.minTotal {
				t.Fatalf("first to last token %v, want ≥ %v", total, tc.minTotal)
			}
		})
	}
}
