package dialect

import (
	"reflect"
	"testing"
)

// sampler serves fixed samples: name → values of its label sets.
func sampler(m map[string][]float64) Sampler {
	return func(name string) (float64, int) {
		var s float64
		for _, v := range m[name] {
			s += v
		}
		return s, len(m[name])
	}
}

func TestMetricsRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dialect string
		page    map[string][]float64
		want    Figures
	}{
		{"vllm data-parallel: counts summed, KV usage averaged", VLLM, map[string][]float64{
			"vllm:num_requests_running": {3, 4}, "vllm:num_requests_waiting": {1, 0},
			"vllm:kv_cache_usage_perc": {0.5, 0.7}, "vllm:prefix_cache_queries_total": {100, 200},
			"vllm:prefix_cache_hits_total": {50, 150}, "vllm:prompt_tokens_total": {100, 200},
			"vllm:generation_tokens_total": {10, 20}, "vllm:num_preemptions_total": {0, 1},
		}, Figures{Running: 7, Waiting: 1, KVUsage: 0.6, PrefixQueries: 300, PrefixHits: 200, PromptTokens: 300,
			GenerationTokens: 30, Preemptions: 1, Has: FieldRunning | FieldWaiting | FieldKVUsage | FieldPrefixQueries |
				FieldPrefixHits | FieldPromptTokens | FieldGenerationTokens | FieldPreemptions}},
		{"vllm V0 names, newest first", VLLM, map[string][]float64{
			"vllm:gpu_cache_usage_perc": {0.25}, "vllm:gpu_prefix_cache_hits": {5}, "vllm:gpu_prefix_cache_queries": {10},
		}, Figures{KVUsage: 0.25, PrefixHits: 5, PrefixQueries: 10, Has: FieldKVUsage | FieldPrefixHits | FieldPrefixQueries}},
		{"sglang: cached tokens by source summed", SGLang, map[string][]float64{
			"sglang:num_running_reqs": {2}, "sglang:num_queue_reqs": {1}, "sglang:token_usage": {0.3},
			"sglang:prompt_tokens_total": {4096}, "sglang:cached_tokens_total": {3000, 168},
		}, Figures{Running: 2, Waiting: 1, KVUsage: 0.3, PrefixQueries: 4096, PrefixHits: 3168, PromptTokens: 4096,
			Has: FieldRunning | FieldWaiting | FieldKVUsage | FieldPrefixQueries | FieldPrefixHits | FieldPromptTokens}},
		{"llamacpp: no prefix counters, computed prompt tokens only", LlamaCpp, map[string][]float64{
			"llamacpp:requests_processing": {1}, "llamacpp:requests_deferred": {2}, "llamacpp:prompt_tokens_total": {11},
			"llamacpp:tokens_predicted_total": {7},
		}, Figures{Running: 1, Waiting: 2, PromptTokens: 11, GenerationTokens: 7,
			Has: FieldRunning | FieldWaiting | FieldPromptTokens | FieldGenerationTokens}},
		{"vllm reading a llama.cpp page finds nothing", VLLM, map[string][]float64{"llamacpp:requests_processing": {1}}, Figures{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := Lookup(tc.dialect)
			if got := d.Metrics.Read(sampler(tc.page)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	if d, _ := Lookup(LlamaCpp); !d.Metrics.PromptComputedOnly {
		t.Error("llamacpp:prompt_tokens_total counts computed tokens only")
	}
}

func TestPrefixes(t *testing.T) {
	names := []string{"llamacpp:a", "llamacpp:b", "process_cpu", "vllm:x"}
	if got := Prefixes(names); !reflect.DeepEqual(got, []string{"llamacpp:", "vllm:"}) {
		t.Errorf("Prefixes = %v", got)
	}
	if d := ByPrefix(names); d == nil || d.Name != LlamaCpp {
		t.Errorf("ByPrefix = %v, want llamacpp", d)
	}
	if d := ByPrefix([]string{"process_cpu"}); d != nil {
		t.Errorf("ByPrefix of no known names = %v", d.Name)
	}
}

func TestUnwrapExposition(t *testing.T) {
	plain := "# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total 7\n"
	for _, tc := range []struct{ in, want string }{
		{plain, plain},
		{`"# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total 7\n"`, plain},
		{`"unterminated`, `"unterminated`},
		{"", ""},
	} {
		if got := string(UnwrapExposition([]byte(tc.in))); got != tc.want {
			t.Errorf("UnwrapExposition(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := ExpositionNames([]byte(plain + "x{a=\"1\"} 2\nx{a=\"2\"} 3\n")); !reflect.DeepEqual(got, []string{"llamacpp:n_decode_total", "x"}) {
		t.Errorf("ExpositionNames = %v", got)
	}
}
