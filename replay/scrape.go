package replay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
)

// ServerMetrics are one scrape of a Backend's Prometheus /metrics, read
// through the Backend's dialect (dialect.Metrics names each figure's
// metric: vllm:num_requests_running, sglang:num_queue_reqs,
// llamacpp:requests_processing, ...). Gauges are the values at scrape
// time; counters are cumulative since the server started (take deltas
// between scrapes). Counts are summed over label sets (models,
// data-parallel engines), KV usage is their mean; a figure the server
// does not expose stays 0 and its bit in Has is clear.
type ServerMetrics struct {
	// Running and Waiting are the requests being computed and queued.
	Running, Waiting float64
	// KVUsage is the fraction of KV-cache capacity in use, 0 to 1.
	KVUsage float64
	// PrefixQueries and PrefixHits count prompt tokens looked up in and
	// found in the prefix cache; ΔHits/ΔQueries is the server's prefix
	// hit rate.
	PrefixQueries, PrefixHits float64
	// NumGPUBlocks is the num_gpu_blocks label of vllm:cache_config_info
	// (KV-cache capacity in blocks; 0 when not exposed).
	NumGPUBlocks int
	// PromptTokens and GenerationTokens count prompt and generated
	// tokens (llama.cpp counts computed prompt tokens only).
	PromptTokens, GenerationTokens float64
	// Preemptions counts preempted (SGLang: retracted) requests.
	Preemptions float64
	// Has marks the figures the page carried.
	Has dialect.Field
	// Found lists the metric namespaces of the page ("llamacpp:") when
	// it carried none of the dialect's names, for the warning.
	Found []string
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

// defaultScrapeClient is used when Scrape gets a nil client.
var defaultScrapeClient = &http.Client{Timeout: 5 * time.Second}

// Scrape fetches base+"/metrics" with hc (nil: a client with a 5 s
// timeout) and parses the Prometheus text format, also when the body is
// the text inside a JSON string (llama-server b7099), reading d's names
// (nil: vLLM). The result has OK set when err is nil.
func Scrape(ctx context.Context, hc *http.Client, base string, d *dialect.Dialect) (ServerMetrics, error) {
	if hc == nil {
		hc = defaultScrapeClient
	}
	u := client.BaseURL(base) + "/metrics"
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
		b, _ := io.ReadAll(io.LimitReader(resp.Body, client.MaxErrBody))
		return ServerMetrics{}, fmt.Errorf("scrape %s: HTTP %s: %s", u, resp.Status, client.Printable(b))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetricsBody))
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("scrape %s: read: %w", u, err)
	}
	m, err := parseMetricsAs(bytes.NewReader(dialect.UnwrapExposition(b)), d)
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("scrape %s: %w", u, err)
	}
	return m, nil
}
