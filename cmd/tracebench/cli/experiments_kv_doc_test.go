//go:build !race

package cli

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// gapPerBackend is each backend's predicted − server hit rate in points.
func gapPerBackend(s *metrics.Summary) string {
	parts := make([]string, len(s.Backends))
	for i, b := range s.Backends {
		d := math.Round(1000*(b.PredictedHitRate-b.HitRate)) / 10
		switch {
		case math.IsNaN(d):
			parts[i] = "n/a"
		case d == 0:
			parts[i] = "0.0"
		default:
			parts[i] = strings.Replace(fmt.Sprintf("%+.1f", d), "-", "−", 1)
		}
	}
	return strings.Join(parts, " / ")
}

// tableKVMooncake is experiment 4's main table: precise-prefix against
// the approximate prefix routers on the whole Mooncake trace.
func tableKVMooncake(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| router | hit (server) | hit (predicted) | hit gap per backend | TTFT p50 ms | TTFT p99 ms | requests per backend |\n" +
		"|---|---:|---:|---|---:|---:|---|\n")
	for _, r := range []struct{ label, policy, params string }{
		{"`round-robin`", "round-robin", ""},
		{"`approx-prefix`", "approx-prefix", ""},
		{"`prefix-cache`", "prefix-cache", ""},
		{"`cache-aware`", "cache-aware", ""},
		{"`precise-prefix`", "precise-prefix", ""},
		{"`precise-prefix` with llm-d's weights (queue 2, KV 2)", "precise-prefix", "queue_weight=2 kv_weight=2"},
	} {
		args := []string{"--time-scale", "2", "--policy", r.policy}
		for _, kv := range strings.Fields(r.params) {
			args = append(args, "--router-param", kv)
		}
		s := mooncakeRun(t, args...)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f | %.0f | %s |\n", r.label, pct(s.HitRate.Server), pct(s.HitRate.Predicted),
			gapPerBackend(s), s.TTFT.P50, s.TTFT.P99, perBackend(s))
	}
	return b.String()
}

// tableKVLag is experiment 4's event lag sweep.
func tableKVLag(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| lag | hit (server) | hit (predicted) | TTFT p50 ms |\n|---|---:|---:|---:|\n")
	for _, lag := range []struct{ label, flag string }{{"0", "0s"}, {"10 ms", "10ms"}, {"100 ms", "100ms"},
		{"1 s", "1s"}, {"10 s", "10s"}, {"60 s", "60s"}} {
		s := mooncakeRun(t, "--time-scale", "2", "--policy", "precise-prefix", "--kv-event-delay", lag.flag)
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f |\n", lag.label, pct(s.HitRate.Server), pct(s.HitRate.Predicted), s.TTFT.P50)
	}
	return b.String()
}
