package mockserver

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// requestMetrics are the rest of vLLM V1's metric set (vllm/v1/metrics
// /loggers.py): per-request token and parameter histograms, the split of
// a request's time into inference, prefill and decode, and the tokens of
// each engine step. With the series of metrics.go the mock exports all
// 23 of vLLM V1's.
type requestMetrics struct {
	promptTokens, genTokens, maxGen prometheus.Observer
	paramsN, paramsMaxTokens        prometheus.Observer
	inference, prefill, decode      prometheus.Observer
	iteration                       prometheus.Observer
}

// buckets125 is vLLM's build_1_2_5_buckets: 1, 2, 5, 10, 20, 50, ... up
// to limit.
func buckets125(limit int) []float64 {
	var b []float64
	for e := 1; ; e *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*e > limit {
				return b
			}
			b = append(b, float64(m*e))
		}
	}
}

// iterationBuckets are vLLM's iteration_tokens_total buckets (the CUDA
// graph capture sizes and the batched-token budget, as powers of two).
var iterationBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}

// newRequestMetrics registers the series in reg.
func newRequestMetrics(reg *prometheus.Registry, model string, maxLen int) *requestMetrics {
	hist := func(name, help string, b []float64) prometheus.Observer {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b}, []string{"model_name"})
		reg.MustRegister(h)
		return h.WithLabelValues(model)
	}
	tok := buckets125(max(maxLen, 1))
	return &requestMetrics{
		promptTokens: hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", tok),
		genTokens:    hist("vllm:request_generation_tokens", "Number of generation tokens processed.", tok),
		maxGen: hist("vllm:request_max_num_generation_tokens",
			"Histogram of maximum number of requested generation tokens.", tok),
		paramsN:         hist("vllm:request_params_n", "Histogram of the n request parameter.", []float64{1, 2, 5, 10, 20}),
		paramsMaxTokens: hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", tok),
		inference: hist("vllm:request_inference_time_seconds",
			"Histogram of time spent in RUNNING phase for request.", requestBuckets),
		prefill: hist("vllm:request_prefill_time_seconds",
			"Histogram of time spent in PREFILL phase for request.", requestBuckets),
		decode: hist("vllm:request_decode_time_seconds",
			"Histogram of time spent in DECODE phase for request.", requestBuckets),
		iteration: hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", iterationBuckets),
	}
}

// step records one engine step's tokens (prefill and decode).
func (m *requestMetrics) step(st engine.Step) {
	if n := st.PrefillTokens + st.DecodeSeqs; n > 0 {
		m.iteration.Observe(float64(n))
	}
}

// finish records a finished request: prompt and output tokens, its
// parameters, and its time from admission (admitted) to the first token
// (first) and to the end (done).
func (m *requestMetrics) finish(prompt, out, maxTokens int, admitted, first, done time.Time) {
	m.promptTokens.Observe(float64(prompt))
	m.genTokens.Observe(float64(out))
	m.maxGen.Observe(float64(max(maxTokens, out)))
	m.paramsN.Observe(1)
	if maxTokens > 0 {
		m.paramsMaxTokens.Observe(float64(maxTokens))
	}
	if admitted.IsZero() {
		return
	}
	m.inference.Observe(done.Sub(admitted).Seconds())
	if !first.IsZero() {
		m.prefill.Observe(first.Sub(admitted).Seconds())
		m.decode.Observe(done.Sub(first).Seconds())
	}
}
