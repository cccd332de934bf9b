//go:build !race

package cli

import (
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestExperimentLoRAAffinityPlusPrefix is experiment 7: 16 shared system
// prompts of 2,048 tokens, each tied to one of 4 LoRA adapters, on 4
// simulated replicas with one adapter slot (a 200 ms load) and 700 KV
// blocks. lora-affinity before prefix-cache hits the cache more and has a
// lower TTFT p99 than either alone, and serves as fast as the filter
// alone and faster than prefix-cache alone.
func TestExperimentLoRAAffinityPlusPrefix(t *testing.T) {
	run := func(args ...string) *metrics.Summary {
		base := []string{"replay", "--workload", "shared-prefix", "-p", "groups=16", "-p", "prompts_per_group=48",
			"-p", "system_len=2048", "-p", "question_len=64", "-p", "output_len=64", "-p", "rate=24", "-p", "adapters=4",
			"--sim", "4", "--mock-blocks", "700", "--mock-set", "max_loras=1", "--mock-set", "lora_load_cost=200ms", "--seed", "1"}
		_, s := simReplay(t, append(base, args...)...)
		return s
	}
	prefix := run("--policy", "prefix-cache")
	lora := run("--policy", "round-robin", "--filter", "lora-affinity")
	both := run("--policy", "prefix-cache", "--filter", "lora-affinity")
	for _, r := range []struct {
		name string
		s    *metrics.Summary
	}{{"prefix-cache", prefix}, {"lora-affinity+round-robin", lora}, {"lora-affinity+prefix-cache", both}} {
		t.Logf("%s: hit %.1f %%, TTFT p50 %.0f p99 %.0f ms, %.2f req/s", r.name, 100*r.s.HitRate.Server, r.s.TTFT.P50,
			r.s.TTFT.P99, r.s.Throughput.Requests)
	}
	for _, alone := range []*metrics.Summary{prefix, lora} {
		if !(both.HitRate.Server > alone.HitRate.Server+0.03) || !(both.TTFT.P99 < alone.TTFT.P99) {
			t.Errorf("both: hit %.3f, TTFT p99 %.0f ms; want hit > %.3f + 0.03 and p99 below %.0f (%s)", both.HitRate.Server,
				both.TTFT.P99, alone.HitRate.Server, alone.TTFT.P99, alone.Header.Router)
		}
	}
	if !(both.Throughput.Requests > 1.03*prefix.Throughput.Requests) || !(both.Throughput.Requests >= 0.99*lora.Throughput.Requests) {
		t.Errorf("both: %.2f req/s; want over 1.03 × prefix-cache's %.2f and at least 0.99 × the filter alone's %.2f",
			both.Throughput.Requests, prefix.Throughput.Requests, lora.Throughput.Requests)
	}
}

// TestExperimentLoRAAffinityPlusPrefixTwoSlots: with two adapter slots
// per replica, offered above what the weaker routings sustain (48 req/s
// open loop, and a closed loop of 32 in flight), lora-affinity before
// prefix-cache serves more than 1.1 × either alone and has a lower TTFT
// p99 than either.
func TestExperimentLoRAAffinityPlusPrefixTwoSlots(t *testing.T) {
	for _, load := range []struct{ rate, maxInflight int }{{48, 0}, {1000, 32}} {
		run := func(r int) *metrics.Summary {
			_, s := simReplay(t, append(loraTwoSlotsArgs(load.rate, load.maxInflight), loraRoutings[r].args...)...)
			if s.OK != 768 {
				t.Fatalf("%s: %d of 768 requests completed", loraRoutings[r].name, s.OK)
			}
			return s
		}
		prefix, lora, both := run(1), run(2), run(3)
		for _, alone := range []*metrics.Summary{prefix, lora} {
			if !(both.Throughput.Requests > 1.1*alone.Throughput.Requests) || !(both.TTFT.P99 < alone.TTFT.P99) {
				t.Errorf("rate %d, max in flight %d: both %.2f req/s, TTFT p99 %.0f ms; want over 1.1 × %.2f and below %.0f (%s, filter %q)",
					load.rate, load.maxInflight, both.Throughput.Requests, both.TTFT.P99, alone.Throughput.Requests,
					alone.TTFT.P99, alone.Header.Router, alone.Header.RouterParams["filter"])
			}
		}
	}
}
