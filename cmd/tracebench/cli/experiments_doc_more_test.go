//go:build !race

package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// Generators of the tables of experiments 4 to 7 (eviction policies,
// production-stack routers, VTC variants, LoRA affinity); see
// TestExperimentTables.

func tableEvictionMooncake(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| eviction | router | hit rate (server) | TTFT p50 ms | TTFT p99 ms | blocks evicted |\n|---|---|---:|---:|---:|---:|\n")
	for _, ev := range []string{"lru", "lru-longest", "lfu"} {
		for _, p := range []string{"round-robin", "prefix-cache"} {
			s := mooncakeRun(t, "--time-scale", "2", "--mock-set", "eviction="+ev, "--policy", p)
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %.0f | %.0f | %s |\n", ev, p, pct(s.HitRate.Server), s.TTFT.P50, s.TTFT.P99,
				thousands(s.Stop.Extra[results.ExtraEvictions]))
		}
	}
	return b.String()
}

func tableProdStackMooncake(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| router | hit rate (server) | hit rate (predicted) | TTFT p50 ms | TTFT p99 ms | requests per backend | CV | req/s |\n|---|---:|---:|---:|---:|---|---:|---:|\n")
	for _, r := range []struct{ name, policy, param string }{
		{"`hashtrie`", "hashtrie", ""}, {"`hashtrie`, `chunk_chars=2048`", "hashtrie", "chunk_chars=2048"},
		{"`simhash`", "simhash", ""}, {"`simhash`, `max_chars=16384`", "simhash", "max_chars=16384"},
		{"`prefix-cache`", "prefix-cache", ""}, {"`cache-aware`", "cache-aware", ""},
		{"`approx-prefix`", "approx-prefix", ""}, {"`round-robin`", "round-robin", ""},
	} {
		args := []string{"--time-scale", "2", "--policy", r.policy}
		if r.param != "" {
			args = append(args, "--router-param", r.param)
		}
		s := mooncakeRun(t, args...)
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %s | %s | %.2f |\n", r.name, pct(s.HitRate.Server), pct(s.HitRate.Predicted),
			s.TTFT.P50, s.TTFT.P99, perBackend(s), cv(s.Balance.CVRequests), s.Throughput.Requests)
	}
	return b.String()
}

// vtcSuiteRun replays one vtc-suite workload on one replica of 4 slots.
func vtcSuiteRun(t *testing.T, suite, queue string, extra ...string) *metrics.Summary {
	args := append([]string{"replay", "--workload", "vtc-suite", "-p", "suite=" + suite, "--sim", "1",
		"--mock-blocks", "625", "--backend-capacity", "4", "--policy", "round-robin", "--queue", queue}, extra...)
	_, s := simReplay(t, args...)
	return s
}

func tableVTCVariants(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| suite | queue | req/s | service diff max | service diff mean | service ratio | TTFT p50 s |\n|---|---|---:|---:|---:|---|---:|\n")
	window := map[string][2]float64{"overload": {64, 360}, "overload-multi": {64, 360}, "on-off-overload": {64, 600},
		"overload-weighted": {64, 360}}
	for _, suite := range []string{"overload", "overload-multi", "on-off-overload", "dist-shift", "overload-weighted"} {
		for _, q := range []string{"fcfs", "vtc", "vtc-oracle", "vtc-predict", "vtc-max-fair", "lcf", "vtc weights 1..4"} {
			var s *metrics.Summary
			switch {
			case q == "vtc weights 1..4" && suite != "overload-weighted":
				continue
			case q == "vtc weights 1..4":
				s = vtcSuiteRun(t, suite, "vtc", "--queue-param", "weights=u0=1,u1=2,u2=3,u3=4")
			default:
				s = vtcSuiteRun(t, suite, q)
			}
			ratio := ""
			if w, ok := window[suite]; ok {
				rs := ratios(s, w[0], w[1])
				parts := make([]string, len(rs))
				for i, r := range rs {
					parts[i] = fmt.Sprintf("%.2f", r)
				}
				ratio = strings.Join(parts, " : ")
			}
			fmt.Fprintf(&b, "| %s | `%s` | %.3f | %.1f | %.1f | %s | %.1f |\n", suite, q, s.Throughput.Requests,
				s.Fairness.ServiceDiffMax, s.Fairness.ServiceDiffMean, ratio, s.TTFT.P50/1000)
		}
	}
	return b.String()
}

func tableLoRAAffinity(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| routing | hit rate (server) | TTFT p50 ms | TTFT p99 ms | req/s | out tok/s |\n|---|---:|---:|---:|---:|---:|\n")
	base := []string{"replay", "--workload", "shared-prefix", "-p", "groups=16", "-p", "prompts_per_group=48",
		"-p", "system_len=2048", "-p", "question_len=64", "-p", "output_len=64", "-p", "rate=24", "-p", "adapters=4",
		"--sim", "4", "--mock-blocks", "700", "--mock-set", "max_loras=1", "--mock-set", "lora_load_cost=200ms", "--seed", "1"}
	for _, r := range []struct {
		name string
		args []string
	}{
		{"`round-robin`", []string{"--policy", "round-robin"}},
		{"`prefix-cache`", []string{"--policy", "prefix-cache"}},
		{"`lora-affinity` + `round-robin`", []string{"--policy", "round-robin", "--filter", "lora-affinity"}},
		{"`lora-affinity` + `prefix-cache`", []string{"--policy", "prefix-cache", "--filter", "lora-affinity"}},
	} {
		_, s := simReplay(t, append(append([]string(nil), base...), r.args...)...)
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %.2f | %.0f |\n", r.name, pct(s.HitRate.Server), s.TTFT.P50, s.TTFT.P99,
			s.Throughput.Requests, s.Throughput.OutputTokens)
	}
	return b.String()
}

// loraTwoSlotsArgs is experiment 8's workload on replicas with two
// adapter slots, offered at rate req/s with at most maxInflight requests
// in flight (0: no cap).
func loraTwoSlotsArgs(rate, maxInflight int) []string {
	return []string{"replay", "--workload", "shared-prefix", "-p", "groups=16", "-p", "prompts_per_group=48",
		"-p", "system_len=2048", "-p", "question_len=64", "-p", "output_len=64", "-p", fmt.Sprintf("rate=%d", rate),
		"-p", "adapters=4", "--sim", "4", "--mock-blocks", "700", "--mock-set", "max_loras=2", "--mock-set", "lora_load_cost=200ms",
		"--seed", "1", "--max-inflight", strconv.Itoa(maxInflight)}
}

// loraRoutings are experiment 8's four routings.
var loraRoutings = []struct {
	name string
	args []string
}{
	{"`round-robin`", []string{"--policy", "round-robin"}},
	{"`prefix-cache`", []string{"--policy", "prefix-cache"}},
	{"`lora-affinity` + `round-robin`", []string{"--policy", "round-robin", "--filter", "lora-affinity"}},
	{"`lora-affinity` + `prefix-cache`", []string{"--policy", "prefix-cache", "--filter", "lora-affinity"}},
}

func tableLoRATwoSlots(t *testing.T) string {
	var b strings.Builder
	b.WriteString("| load | routing | hit rate (server) | TTFT p50 ms | TTFT p99 ms | req/s | out tok/s |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, load := range []struct {
		name              string
		rate, maxInflight int
	}{{"48 req/s", 48, 0}, {"closed loop, 32 in flight", 1000, 32}} {
		for _, r := range loraRoutings {
			_, s := simReplay(t, append(loraTwoSlotsArgs(load.rate, load.maxInflight), r.args...)...)
			fmt.Fprintf(&b, "| %s | %s | %s | %.0f | %.0f | %.2f | %.0f |\n", load.name, r.name, pct(s.HitRate.Server),
				s.TTFT.P50, s.TTFT.P99, s.Throughput.Requests, s.Throughput.OutputTokens)
		}
	}
	return b.String()
}
