package replay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ServerMetrics are one scrape of a Backend's Prometheus /metrics, in
// vLLM V1 terms. Gauges are the values at scrape time; counters are
// cumulative since the server started (take deltas between scrapes).
// Every figure is summed over label sets (e.g. one per model); a metric
// the server does not expose stays 0.
type ServerMetrics struct {
	// Running and Waiting are vllm:num_requests_running and
	// vllm:num_requests_waiting (requests).
	Running, Waiting float64
	// KVUsage is vllm:kv_cache_usage_perc (V0: vllm:gpu_cache_usage_perc),
	// the fraction of KV-cache blocks in use, 0 to 1.
	KVUsage float64
	// PrefixQueries and PrefixHits are vllm:prefix_cache_queries_total and
	// vllm:prefix_cache_hits_total (V0: vllm:gpu_prefix_cache_*), counted
	// in tokens; ΔHits/ΔQueries is the server's prefix hit rate.
	PrefixQueries, PrefixHits float64
	// NumGPUBlocks is the num_gpu_blocks label of vllm:cache_config_info
	// (KV-cache capacity in blocks; 0 when not exposed).
	NumGPUBlocks int
	// PromptTokens and GenerationTokens are vllm:prompt_tokens_total and
	// vllm:generation_tokens_total (tokens).
	PromptTokens, GenerationTokens float64
	// Preemptions is vllm:num_preemptions_total.
	Preemptions float64
	// StepLateP50, StepLateP99 and StepLateMax are the bundled mock
	// server's step lateness (seconds a step started after its deadline);
	// 0 for a real vLLM server.
	StepLateP50, StepLateP99, StepLateMax float64
	// MockSteps is tracebench_mock_steps_total, the bundled mock server's
	// engine steps since it started (a counter; 0 for a real vLLM server).
	MockSteps float64
	// Mock reports that the page carries the bundled mock server's step
	// lateness (tracebench_mock_step_lateness_seconds), so the StepLate
	// figures and MockSteps were measured rather than absent.
	Mock bool
	// LoRA is vllm:lora_requests_info (nil when the server does not
	// expose it).
	LoRA *LoRAInfo
	// OK reports a successful scrape.
	OK bool
}

// maxMetricsBody bounds a /metrics response (16 MiB).
const maxMetricsBody = 16 << 20

// defaultScrapeClient is used when ScrapeOnce gets a nil client.
var defaultScrapeClient = &http.Client{Timeout: 5 * time.Second}

// ScrapeOnce fetches base+"/metrics" with hc (nil: a client with a 5 s
// timeout) and parses the Prometheus text format. The result has OK set
// when err is nil.
func ScrapeOnce(ctx context.Context, hc *http.Client, base string) (ServerMetrics, error) {
	if hc == nil {
		hc = defaultScrapeClient
	}
	u := baseURL(base) + "/metrics"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("scrape %s: %w", u, err)
	}
	// Ask for the classic text format (not protobuf or OpenMetrics).
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := hc.Do(req)
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		return ServerMetrics{}, fmt.Errorf("scrape %s: HTTP %s: %s", u, resp.Status, printable(b))
	}
	m, err := parseMetrics(io.LimitReader(resp.Body, maxMetricsBody))
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("scrape %s: %w", u, err)
	}
	return m, nil
}
