package mockserver

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// Histogram buckets of vLLM V1's metrics (vllm/v1/metrics/loggers.py), in
// seconds.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
		2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0,
		2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0,
		40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
)

// metrics are one server's Prometheus metrics in its own registry.
// Latency histograms are observed by the handlers at the real emission
// times; engine gauges and counters are read from the engine at scrape
// time, so they always agree with it.
type metrics struct {
	reg                   *prometheus.Registry
	ttft, itl, e2e, queue prometheus.Observer
	faults                *prometheus.CounterVec
	v1                    *requestMetrics
}

func newMetrics(model string, src statsSource, cfg engine.Config) *metrics {
	reg := prometheus.NewRegistry()
	hist := func(name, help string, b []float64) prometheus.Observer {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: b}, []string{"model_name"})
		reg.MustRegister(h)
		return h.WithLabelValues(model)
	}
	m := &metrics{reg: reg,
		ttft:  hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds, from arrival.", ttftBuckets),
		itl:   hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets),
		e2e:   hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.", requestBuckets),
		queue: hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestBuckets),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tracebench_mock_faults_total",
			Help: "Faults injected by the mock server, by kind."}, []string{"fault"}),
	}
	reg.MustRegister(m.faults, newEngineCollector(model, src, cfg))
	m.v1 = newRequestMetrics(reg, model, cfg.MaxModelLen)
	return m
}

// statsSource gives the collector its figures at scrape time.
type statsSource interface {
	stats() engine.Stats
	lateness() *lateness
}

// engineCollector exports engine state under vLLM V1 names, and the
// driver's step lateness.
type engineCollector struct {
	model     string
	src       statsSource
	cacheInfo *prometheus.Desc
	lora      bool // adapters are served: export the LoRA series
}

// newEngineCollector describes the cache configuration as vLLM's
// vllm:cache_config_info does (an info gauge with the values as labels).
func newEngineCollector(model string, src statsSource, cfg engine.Config) *engineCollector {
	info := prometheus.NewDesc("vllm:cache_config_info", "Information of the LLMEngine CacheConfig.", nil,
		prometheus.Labels{"block_size": strconv.Itoa(cfg.BlockSize), "num_gpu_blocks": strconv.Itoa(cfg.NumGPUBlocks),
			"enable_prefix_caching": "True"})
	return &engineCollector{model: model, src: src, cacheInfo: info, lora: cfg.LoRA.MaxLoras > 0}
}

var (
	dRunning   = desc("vllm:num_requests_running", "Number of requests in model execution batches.")
	dWaiting   = desc("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
	dKVUsage   = desc("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.")
	dQueries   = desc("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.")
	dHits      = desc("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.")
	dPreempt   = desc("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.")
	dPrompt    = desc("vllm:prompt_tokens_total", "Number of prefill tokens processed.")
	dGen       = desc("vllm:generation_tokens_total", "Number of generation tokens processed.")
	dSuccess   = desc("vllm:request_success_total", "Count of successfully processed requests.", "finished_reason")
	dEvictions = desc("tracebench_mock_kv_evictions_total", "Cached KV blocks evicted to make room.")
	dSteps     = desc("tracebench_mock_steps_total", "Engine steps run.")
	dLate      = prometheus.NewDesc("tracebench_mock_step_lateness_seconds",
		"Wall time the mock's steps ended after their deadlines.", nil, nil)
	dLateMax = prometheus.NewDesc("tracebench_mock_step_lateness_max_seconds",
		"Largest step lateness so far.", nil, nil)
	dResyncs = prometheus.NewDesc("tracebench_mock_step_resyncs_total",
		"Steps that ended over 100 ms late, after which the schedule was re-anchored (model time lost).", nil, nil)
)

// desc builds a descriptor with the model_name label plus extra labels.
func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append([]string{"model_name"}, labels...), nil)
}

// Describe implements prometheus.Collector.
func (c *engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{dRunning, dWaiting, dKVUsage, dQueries, dHits, dPreempt, dPrompt,
		dGen, dSuccess, c.cacheInfo, dEvictions, dSteps, dLate, dLateMax, dResyncs} {
		ch <- d
	}
	if c.lora {
		ch <- dLoRAInfo
		ch <- dLoRALoads
	}
}

// Collect implements prometheus.Collector.
func (c *engineCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.stats()
	g := func(d *prometheus.Desc, t prometheus.ValueType, v float64, l ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, v, append([]string{c.model}, l...)...)
	}
	g(dRunning, prometheus.GaugeValue, float64(st.Running))
	g(dWaiting, prometheus.GaugeValue, float64(st.Waiting))
	g(dKVUsage, prometheus.GaugeValue, st.KVUsage)
	g(dQueries, prometheus.CounterValue, float64(st.PrefixQueries))
	g(dHits, prometheus.CounterValue, float64(st.PrefixHits))
	g(dPreempt, prometheus.CounterValue, float64(st.Preemptions))
	g(dPrompt, prometheus.CounterValue, float64(st.PromptTokens))
	g(dGen, prometheus.CounterValue, float64(st.GenerationTokens))
	for _, r := range []engine.FinishReason{engine.FinishStop, engine.FinishLength, engine.FinishAbort} {
		g(dSuccess, prometheus.CounterValue, float64(st.Finished[r]), string(r))
	}
	g(dEvictions, prometheus.CounterValue, float64(st.Evictions))
	g(dSteps, prometheus.CounterValue, float64(st.Steps))
	ch <- prometheus.MustNewConstMetric(c.cacheInfo, prometheus.GaugeValue, 1)
	n, sum, qs, mx, rs := c.src.lateness().quantiles([]float64{0.5, 0.9, 0.99, 0.999})
	ch <- prometheus.MustNewConstSummary(dLate, n, sum, qs)
	ch <- prometheus.MustNewConstMetric(dLateMax, prometheus.GaugeValue, mx)
	ch <- prometheus.MustNewConstMetric(dResyncs, prometheus.CounterValue, float64(rs))
	if c.lora {
		l := st.LoRA
		ch <- prometheus.MustNewConstMetric(dLoRAInfo, prometheus.GaugeValue, float64(time.Now().UnixNano())/1e9,
			strconv.Itoa(l.MaxLoras), strings.Join(l.Waiting, ","), strings.Join(l.Running, ","))
		ch <- prometheus.MustNewConstMetric(dLoRALoads, prometheus.CounterValue, float64(l.Loads), c.model)
	}
}

// dLoRAInfo is vLLM's LoRA info gauge: the adapters of running and of
// waiting requests as comma-separated labels, the time as its value.
var (
	dLoRAInfo = prometheus.NewDesc("vllm:lora_requests_info", "Running stats on lora requests.", []string{"max_lora",
		"waiting_lora_adapters", "running_lora_adapters"}, nil)
	dLoRALoads = desc("tracebench_mock_lora_loads_total", "LoRA adapters loaded into a GPU slot.")
)
