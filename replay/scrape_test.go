package replay

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
)

// vllmV1Metrics is an excerpt of a vLLM V1 /metrics page (python
// prometheus_client text format) serving two models, with the deprecated
// V0 aliases that some releases export beside the V1 names.
const vllmV1Metrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="llama"} 3.0
vllm:num_requests_running{engine="0",model_name="qwen"} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="llama"} 7.0
vllm:num_requests_waiting{engine="0",model_name="qwen"} 0.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="llama"} 0.25
# HELP vllm:gpu_cache_usage_perc GPU KV-cache usage (deprecated).
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{engine="0",model_name="llama"} 0.25
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="llama"} 4096.0
# HELP vllm:gpu_prefix_cache_queries_total (deprecated)
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total{engine="0",model_name="llama"} 4096.0
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="llama"} 1024.0
# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0",model_name="llama"} 2.0
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="llama"} 5000.0
vllm:prompt_tokens_total{engine="0",model_name="qwen"} 120.0
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="llama"} 800.0
# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",enable_prefix_caching="True",num_gpu_blocks="27153"} 1.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="llama"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="llama"} 12.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="llama"} 12.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="llama"} 0.9
`

// vllmV0Metrics uses only the older names.
const vllmV0Metrics = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 1
# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc{model_name="m"} 0.5
# TYPE vllm:gpu_prefix_cache_queries counter
vllm:gpu_prefix_cache_queries{model_name="m"} 100
# TYPE vllm:gpu_prefix_cache_hits_total counter
vllm:gpu_prefix_cache_hits_total{model_name="m"} 40
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{num_gpu_blocks="None"} 1
`

// vllmDPMetrics is a data-parallel vLLM (two engines).
const vllmDPMetrics = `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 2
vllm:num_requests_running{engine="1",model_name="m"} 3
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.75
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 100
vllm:prefix_cache_queries_total{engine="1",model_name="m"} 200
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 20
vllm:prefix_cache_hits_total{engine="1",model_name="m"} 100
`

// llamacppMetrics is llama-server b7099's page (after unwrapping).
const llamacppMetrics = `# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 11
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 7
# TYPE llamacpp:n_decode_total counter
llamacpp:n_decode_total 7
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 1
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 0
`

const (
	allFields = dialect.FieldRunning | dialect.FieldWaiting | dialect.FieldKVUsage | dialect.FieldPrefixQueries |
		dialect.FieldPrefixHits | dialect.FieldPromptTokens | dialect.FieldGenerationTokens | dialect.FieldPreemptions
	v0Fields = dialect.FieldRunning | dialect.FieldKVUsage | dialect.FieldPrefixQueries | dialect.FieldPrefixHits
)

// mockMetrics carries the mock server's step lateness and step count.
const mockMetrics = `# TYPE tracebench_mock_steps_total counter
tracebench_mock_steps_total{model_name="m"} 1234
# TYPE tracebench_mock_step_lateness_seconds summary
tracebench_mock_step_lateness_seconds{quantile="0.5"} 0.0002
tracebench_mock_step_lateness_seconds{quantile="0.99"} 0.003
tracebench_mock_step_lateness_seconds_sum 0.5
tracebench_mock_step_lateness_seconds_count 1000
# TYPE tracebench_mock_step_lateness_max_seconds gauge
tracebench_mock_step_lateness_max_seconds 0.012
# TYPE vllm:num_requests_waiting untyped
vllm:num_requests_waiting NaN
`

func TestParseMetrics(t *testing.T) {
	tests := []struct {
		name, text string
		want       ServerMetrics
	}{
		{"vLLM V1, two models, V0 aliases not double counted", vllmV1Metrics, ServerMetrics{
			Running: 5, Waiting: 7, KVUsage: 0.25, PrefixQueries: 4096, PrefixHits: 1024, NumGPUBlocks: 27153,
			PromptTokens: 5120, GenerationTokens: 800, Preemptions: 2, OK: true, Has: allFields}},
		{"vLLM V0 names", vllmV0Metrics, ServerMetrics{
			Running: 1, KVUsage: 0.5, PrefixQueries: 100, PrefixHits: 40, OK: true, Has: v0Fields}},
		{"vLLM data-parallel engines: counts summed, KV usage averaged", vllmDPMetrics, ServerMetrics{
			Running: 5, KVUsage: 0.5, PrefixQueries: 300, PrefixHits: 120, OK: true, Has: v0Fields}},
		{"mock step lateness, NaN as 0", mockMetrics, ServerMetrics{
			StepLateP50: 0.0002, StepLateP99: 0.003, StepLateMax: 0.012, MockSteps: 1234, Mock: true, OK: true,
			Has: dialect.FieldWaiting}},
		{"llama.cpp page read as vLLM: nothing known, namespace found", llamacppMetrics, ServerMetrics{
			OK: true, Found: []string{"llamacpp:"}}},
		{"empty page", "", ServerMetrics{OK: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMetrics(strings.NewReader(tc.text))
			if err != nil {
				t.Fatalf("parseMetrics: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ServerMetrics mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMetricsErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"bad value", "vllm:num_requests_running abc\n", "line 1"},
		{"unclosed labels", "vllm:num_requests_running{a=\"b\" 1\n", "line 1"},
		{"type clash", "# TYPE x gauge\n# TYPE x counter\n", "line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseMetrics(strings.NewReader(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestScrapeVLLM(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		wantErr string
		want    ServerMetrics
	}{
		{"vLLM page", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/metrics" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/plain; version=0.0.4")
			fmt.Fprint(w, vllmV0Metrics)
		}, "", ServerMetrics{Running: 1, KVUsage: 0.5, PrefixQueries: 100, PrefixHits: 40, OK: true, Has: v0Fields}},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "HTTP 404", ServerMetrics{}},
		{"garbage", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{\"json\": true}") }, "parse metrics",
			ServerMetrics{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakesse.RawServer(t, tc.handler)
			got, err := Scrape(context.Background(), nil, srv.URL+"/v1/", nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Scrape: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ServerMetrics mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScrapeLlamaCpp scrapes llama-server b7099's JSON-wrapped page and
// the plain page of later releases in the llama.cpp dialect.
func TestScrapeLlamaCpp(t *testing.T) {
	d, _ := dialect.Lookup(dialect.LlamaCpp)
	want := ServerMetrics{Running: 1, PromptTokens: 11, GenerationTokens: 7, OK: true,
		Has: dialect.FieldRunning | dialect.FieldWaiting | dialect.FieldPromptTokens | dialect.FieldGenerationTokens}
	wrapped, _ := json.Marshal(llamacppMetrics)
	for name, body := range map[string]string{"json-wrapped": string(wrapped), "plain": llamacppMetrics} {
		t.Run(name, func(t *testing.T) {
			srv := fakesse.RawServer(t, func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) })
			got, err := Scrape(context.Background(), nil, srv.URL, d)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ServerMetrics mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScrapeRefused(t *testing.T) {
	addr := fakesse.ClosedAddr(t)
	if _, err := Scrape(context.Background(), nil, "http://"+addr, nil); err == nil {
		t.Fatal("Scrape of a closed port succeeded")
	}
}
