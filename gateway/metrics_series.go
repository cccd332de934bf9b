package gateway

import "github.com/prometheus/client_golang/prometheus"

// backendLabels label a per-Backend series: its index ("b0", "b1", …)
// and its base URL.
var backendLabels = []string{"backend", "url"}

// backendGauge is a gauge with one series per Backend.
func backendGauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, backendLabels)
}

// backendCounter is a counter with one series per Backend.
func backendCounter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, backendLabels)
}

// secondsHistogram is a histogram of durations in seconds, its n
// buckets doubling from start.
func secondsHistogram(name, help string, start float64, n int) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help,
		Buckets: prometheus.ExponentialBuckets(start, 2, n)})
}
