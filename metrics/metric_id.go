package metrics

// MetricID identifies a figure a prediction compares apart from its
// display label: what is stored from a prediction (an engine profile's
// validation and agreement records) is keyed by it, so renaming a label
// changes no stored record.
type MetricID string

// The figures a prediction compares, in its rows' order.
const (
	MetricTTFTP50          MetricID = "ttft_p50"
	MetricTTFTP90          MetricID = "ttft_p90"
	MetricTTFTP99          MetricID = "ttft_p99"
	MetricTPOTP50          MetricID = "tpot_p50"
	MetricTPOTP90          MetricID = "tpot_p90"
	MetricE2EP50           MetricID = "e2e_p50"
	MetricE2EP90           MetricID = "e2e_p90"
	MetricThroughput       MetricID = "throughput"
	MetricOutputThroughput MetricID = "output_throughput"
	MetricServerHitRate    MetricID = "server_hit_rate"
)

// metricLabels are the figures' display labels.
var metricLabels = map[MetricID]string{
	MetricTTFTP50: "TTFT p50", MetricTTFTP90: "TTFT p90", MetricTTFTP99: "TTFT p99",
	MetricTPOTP50: "TPOT p50", MetricTPOTP90: "TPOT p90",
	MetricE2EP50: "E2E p50", MetricE2EP90: "E2E p90",
	MetricThroughput: "throughput", MetricOutputThroughput: "output throughput",
	MetricServerHitRate: "server hit rate",
}

// Label is the figure's display label ("TTFT p50"); the identity itself
// for one without a label.
func (id MetricID) Label() string {
	if l, ok := metricLabels[id]; ok {
		return l
	}
	return string(id)
}

// HigherIsBetter reports whether a larger value of the figure is better
// (rates and hit rates; latencies are better lower).
func (id MetricID) HigherIsBetter() bool {
	return id == MetricThroughput || id == MetricOutputThroughput || id == MetricServerHitRate
}
