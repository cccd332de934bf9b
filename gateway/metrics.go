package gateway

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// Metric names the gateway exports on /metrics.
const (
	MetricInflight       = "tracebench_gateway_backend_inflight"
	MetricPicks          = "tracebench_gateway_backend_picks_total"
	MetricPredictedHit   = "tracebench_gateway_predicted_hit_tokens_total"
	MetricIntendedPrompt = "tracebench_gateway_prompt_tokens_total"
	MetricCached         = "tracebench_gateway_cached_tokens_total"
	MetricServerPrompt   = "tracebench_gateway_server_prompt_tokens_total"
	MetricQueueDepth     = "tracebench_gateway_queue_depth"
	MetricRequests       = "tracebench_gateway_requests_total"
	MetricTTFT           = "tracebench_gateway_ttft_seconds"
	MetricTPOT           = "tracebench_gateway_tpot_seconds"
	MetricUnknownDialect = "tracebench_gateway_backend_dialect_unknown"
)

// metrics are the gateway's Prometheus figures. Per-Backend series are
// made once per Backend (picks and in-flight updates do not allocate).
type metrics struct {
	inflight, unknown             *prometheus.GaugeVec
	picks, predicted, intended    *prometheus.CounterVec
	cached, served, requests      *prometheus.CounterVec
	queue                         prometheus.Gauge
	ttft, tpot                    prometheus.Histogram
	mu                            sync.Mutex
	bInflight                     []prometheus.Gauge
	bPicks, bPredicted, bIntended []prometheus.Counter
	bCached, bServed              []prometheus.Counter
	urls                          []string
}

// newMetrics registers the gateway's metrics in reg, with series for
// the Backends at urls.
func newMetrics(reg prometheus.Registerer, urls []string) (*metrics, error) {
	m := &metrics{
		inflight: backendGauge(MetricInflight,
			"Requests the gateway has in flight on the backend (a prefill counts on its prefill backend)."),
		unknown: backendGauge(MetricUnknownDialect,
			"1 when the backend answers in no dialect tracebench knows (its cached-token counts may be missing)."),
		picks: backendCounter(MetricPicks,
			"Requests the router sent to the backend."),
		predicted: backendCounter(MetricPredictedHit,
			"Prompt tokens the router expected cached on the backend it picked."),
		intended: backendCounter(MetricIntendedPrompt,
			"Prompt tokens of the requests sent to the backend, as the gateway counts them (token ids, else the server's count): the predicted hit's denominator."),
		cached: backendCounter(MetricCached,
			"Cached prompt tokens the backend reported (the server hit's numerator)."),
		served: backendCounter(MetricServerPrompt,
			"Prompt tokens the backend reported for answers that carried a cached-token count (the server hit's denominator)."),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: MetricRequests,
			Help: "Requests the gateway finished, by outcome: ok or the results file's error class."}, []string{"outcome"}),
		queue: prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricQueueDepth,
			Help: "Requests held in the gateway's queue (or behind its in-flight cap)."}),
		ttft: secondsHistogram(MetricTTFT,
			"Time to first token at the gateway: from the request's arrival to the first content chunk from the backend.", 0.005, 14),
		tpot: secondsHistogram(MetricTPOT,
			"Time per output token after the first, per request.", 0.001, 12),
	}
	for _, c := range []prometheus.Collector{m.inflight, m.unknown, m.picks, m.predicted, m.intended, m.cached,
		m.served, m.requests, m.queue, m.ttft, m.tpot} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, u := range urls {
		m.join(u)
	}
	return m, nil
}

// join makes the series of the next Backend, at url.
func (m *metrics) join(url string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := "b" + strconv.Itoa(len(m.urls))
	m.urls = append(m.urls, url)
	m.bInflight = append(m.bInflight, m.inflight.WithLabelValues(id, url))
	m.bPicks = append(m.bPicks, m.picks.WithLabelValues(id, url))
	m.bPredicted = append(m.bPredicted, m.predicted.WithLabelValues(id, url))
	m.bIntended = append(m.bIntended, m.intended.WithLabelValues(id, url))
	m.bCached = append(m.bCached, m.cached.WithLabelValues(id, url))
	m.bServed = append(m.bServed, m.served.WithLabelValues(id, url))
	m.unknown.WithLabelValues(id, url).Set(0)
}

// setUnknown marks Backend i's dialect as unknown.
func (m *metrics) setUnknown(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unknown.WithLabelValues("b"+strconv.Itoa(i), m.urls[i]).Set(1)
}

// dispatched counts a pick of Backend b (and of a prefill Backend).
func (m *metrics) dispatched(b int, pre *replay.PrefillPick) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bPicks[b].Inc()
	m.bInflight[b].Inc()
	if pre != nil {
		m.bInflight[pre.Backend].Inc()
	}
}

// prefillFinished counts the end of a prefill on Backend b.
func (m *metrics) prefillFinished(b int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bInflight[b].Dec()
}

// finished counts the end of a dispatched request.
func (m *metrics) finished(r *results.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := r.Backend
	m.bInflight[b].Dec()
	m.bPredicted[b].Add(float64(r.PredictedHitTokens))
	m.bIntended[b].Add(float64(r.InputTokens))
	if r.OK() && !r.NoCached {
		m.bCached[b].Add(float64(r.CachedTokens))
		m.bServed[b].Add(float64(r.PromptTokens))
	}
}

// outcome counts a finished request (dispatched or not) and its
// latencies.
func (m *metrics) outcome(r *results.Result) {
	class := r.ErrClass
	if class == "" {
		class = "ok"
	}
	m.requests.WithLabelValues(class).Inc()
	if ttft := r.TTFT(); ttft > 0 {
		m.ttft.Observe(ttft.Seconds())
	}
	if tpot := r.TPOT(); tpot > 0 {
		m.tpot.Observe(tpot.Seconds())
	}
}

// queueDepth sets the number of held requests.
func (m *metrics) queueDepth(n int) { m.queue.Set(float64(n)) }
