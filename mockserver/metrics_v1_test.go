package mockserver

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestVLLMV1MetricSet: the mock exports every series of vLLM V1's
// metric set, and a served request is counted in the per-request ones.
func TestVLLMV1MetricSet(t *testing.T) {
	want := []string{"vllm:cache_config_info", "vllm:e2e_request_latency_seconds", "vllm:generation_tokens_total",
		"vllm:inter_token_latency_seconds", "vllm:iteration_tokens_total", "vllm:kv_cache_usage_perc",
		"vllm:num_preemptions_total", "vllm:num_requests_running", "vllm:num_requests_waiting",
		"vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total", "vllm:prompt_tokens_total",
		"vllm:request_decode_time_seconds", "vllm:request_generation_tokens", "vllm:request_inference_time_seconds",
		"vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens", "vllm:request_params_n",
		"vllm:request_prefill_time_seconds", "vllm:request_prompt_tokens", "vllm:request_queue_time_seconds",
		"vllm:request_success_total", "vllm:time_to_first_token_seconds"}
	_, base := startServer(t, fastOptions())
	if code, _, body := post(t, base+"/v1/completions", `{"model":"mock-model","prompt":"a b c d","max_tokens":3}`); code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	fams := metricFamilies(t, base)
	var got []string
	for n := range fams {
		if strings.HasPrefix(n, "vllm:") {
			got = append(got, n)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("vllm: series\n got %v\nwant %v", got, want)
	}
	for _, n := range []string{"vllm:request_prompt_tokens", "vllm:request_decode_time_seconds", "vllm:iteration_tokens_total"} {
		if c := fams[n].GetMetric()[0].GetHistogram().GetSampleCount(); c == 0 {
			t.Errorf("%s counted nothing after a served request", n)
		}
	}
	if s := fams["vllm:request_prompt_tokens"].GetMetric()[0].GetHistogram().GetSampleSum(); s != 4 {
		t.Errorf("request_prompt_tokens sum %v, want the 4 prompt tokens", s)
	}
}
