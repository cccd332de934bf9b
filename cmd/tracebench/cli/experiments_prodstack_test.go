//go:build !race

package cli

import (
	"strconv"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestExperimentProductionStackRoutersOnMooncake is experiment 5 on the
// first 800 Mooncake requests. Every prompt opens with the same 512-token
// block, so hashtrie's walk narrows to the first Backend that got it and
// simhash's default 512-character opening has one fingerprint: each sends
// every request to one replica. simhash fingerprinting 16,384 characters
// spreads the load with no starved replica and beats round-robin's server
// hit rate by more than 5 points.
func TestExperimentProductionStackRoutersOnMooncake(t *testing.T) {
	trace := experimentTrace(t, "mooncake/conversation_trace.jsonl")
	run := func(router string, params ...string) *metrics.Summary {
		args := []string{"replay", "--trace", trace, "--sim", "4", "--mock-profile", "long-context",
			"--time-scale", "2", "--max-requests", strconv.Itoa(800), "--seed", "1", "--policy", router}
		for _, p := range params {
			args = append(args, "--router-param", p)
		}
		_, s := simReplay(t, args...)
		return s
	}
	for _, tc := range []struct{ router, param string }{{"hashtrie", ""}, {"simhash", ""}, {"hashtrie", "chunk_chars=2048"}} {
		t.Run(tc.router+" "+tc.param, func(t *testing.T) {
			var s *metrics.Summary
			if tc.param == "" {
				s = run(tc.router)
			} else {
				s = run(tc.router, tc.param)
			}
			busy := 0
			for _, b := range s.Backends {
				if b.Requests > 0 {
					busy++
				}
			}
			t.Logf("requests per backend %v, server hit %.1f %%", backendRequests(s), 100*s.HitRate.Server)
			if busy != 1 {
				t.Errorf("%d backends served requests, want all on one (requests %v)", busy, backendRequests(s))
			}
		})
	}
	rr := run("round-robin")
	wide := run("simhash", "max_chars=16384")
	t.Logf("simhash max_chars=16384: server hit %.1f %% (round-robin %.1f %%), TTFT p50 %.0f ms (round-robin %.0f), requests %v, CV %.3f",
		100*wide.HitRate.Server, 100*rr.HitRate.Server, wide.TTFT.P50, rr.TTFT.P50, backendRequests(wide), wide.Balance.CVRequests)
	if !(wide.HitRate.Server > rr.HitRate.Server+0.05) {
		t.Errorf("simhash max_chars=16384 server hit %.3f, want > round-robin's %.3f + 0.05", wide.HitRate.Server, rr.HitRate.Server)
	}
	checkNoStarvedBackend(t, wide)
}

// backendRequests lists the requests each backend served.
func backendRequests(s *metrics.Summary) []int64 {
	out := make([]int64, len(s.Backends))
	for i, b := range s.Backends {
		out[i] = b.Requests
	}
	return out
}
