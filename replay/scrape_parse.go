package replay

import (
	"fmt"
	"io"
	"math"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Metric names read from /metrics, newest first: the first name a server
// exposes wins, so a vLLM that exports both V1 names and their deprecated
// V0 aliases is not counted twice. Names: vLLM's production metrics
// documentation (V1 engine) and the V0 names it replaced.
var (
	namesRunning       = []string{"vllm:num_requests_running"}
	namesWaiting       = []string{"vllm:num_requests_waiting"}
	namesKVUsage       = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}
	namesPrefixQueries = []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries",
		"vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"}
	namesPrefixHits = []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits",
		"vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"}
	namesPromptTokens     = []string{"vllm:prompt_tokens_total", "vllm:prompt_tokens"}
	namesGenerationTokens = []string{"vllm:generation_tokens_total", "vllm:generation_tokens"}
	namesPreemptions      = []string{"vllm:num_preemptions_total", "vllm:num_preemptions"}
	nameCacheConfig       = "vllm:cache_config_info"
	// The bundled mock server's step lateness: a summary with 0.5 and
	// 0.99 quantiles and a gauge of the largest lateness, in seconds.
	// Its engine steps are the counter tracebench_mock_steps_total.
	nameStepLate    = "tracebench_mock_step_lateness_seconds"
	nameStepLateMax = "tracebench_mock_step_lateness_max_seconds"
	nameMockSteps   = "tracebench_mock_steps_total"
)

// parseMetrics parses the Prometheus text exposition format into
// ServerMetrics (OK set).
func parseMetrics(r io.Reader) (ServerMetrics, error) {
	fams, err := textToFamilies(r)
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("parse metrics: %w", err)
	}
	m := ServerMetrics{OK: true}
	m.Running = sumFirst(fams, namesRunning)
	m.Waiting = sumFirst(fams, namesWaiting)
	m.KVUsage = sumFirst(fams, namesKVUsage)
	m.PrefixQueries = sumFirst(fams, namesPrefixQueries)
	m.PrefixHits = sumFirst(fams, namesPrefixHits)
	m.PromptTokens = sumFirst(fams, namesPromptTokens)
	m.GenerationTokens = sumFirst(fams, namesGenerationTokens)
	m.Preemptions = sumFirst(fams, namesPreemptions)
	m.NumGPUBlocks = gpuBlocks(fams[nameCacheConfig])
	m.StepLateP50 = quantile(fams[nameStepLate], 0.5)
	m.StepLateP99 = quantile(fams[nameStepLate], 0.99)
	m.StepLateMax = sumFirst(fams, []string{nameStepLateMax})
	m.MockSteps = sumFirst(fams, []string{nameMockSteps})
	_, m.Mock = fams[nameStepLate]
	m.LoRA = loraInfo(fams[nameLoRAInfo])
	return m, nil
}

// textToFamilies runs the expfmt text parser, turning a panic into an
// error: the parser (prometheus/common v0.62) dereferences nil on a line
// that opens with "{" before any metric (found by FuzzScrape; seed
// testdata/fuzz/FuzzScrape/expfmt_brace_line_panic), and a scraped server
// must not be able to crash a Run.
func textToFamilies(r io.Reader) (fams map[string]*dto.MetricFamily, err error) {
	defer func() {
		if p := recover(); p != nil {
			fams, err = nil, fmt.Errorf("malformed exposition text (parser panic: %v)", p)
		}
	}()
	var p expfmt.TextParser
	return p.TextToMetricFamilies(r)
}

// sumFirst sums the samples of the first of names present in fams.
func sumFirst(fams map[string]*dto.MetricFamily, names []string) float64 {
	for _, n := range names {
		if f, ok := fams[n]; ok {
			var s float64
			for _, mt := range f.GetMetric() {
				s += finite(value(mt))
			}
			return s
		}
	}
	return 0
}

// value is the sample of a gauge, counter or untyped metric.
func value(mt *dto.Metric) float64 {
	switch {
	case mt.Gauge != nil:
		return mt.Gauge.GetValue()
	case mt.Counter != nil:
		return mt.Counter.GetValue()
	case mt.Untyped != nil:
		return mt.Untyped.GetValue()
	}
	return 0
}

// finite maps NaN and ±Inf (legal in the format) to 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// gpuBlocks reads the num_gpu_blocks label of vllm:cache_config_info
// (the largest over label sets; "None" or a non-number counts as 0).
func gpuBlocks(f *dto.MetricFamily) int {
	best := 0
	for _, mt := range f.GetMetric() {
		for _, lp := range mt.GetLabel() {
			if lp.GetName() != "num_gpu_blocks" {
				continue
			}
			if n, err := strconv.Atoi(lp.GetValue()); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}

// quantile returns the largest value of quantile q over a summary's
// label sets (0 when absent).
func quantile(f *dto.MetricFamily, q float64) float64 {
	best := 0.0
	for _, mt := range f.GetMetric() {
		for _, qv := range mt.GetSummary().GetQuantile() {
			if qv.GetQuantile() == q {
				best = max(best, finite(qv.GetValue()))
			}
		}
	}
	return best
}
