//go:build !race

package cli

import (
	"strconv"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// The simulator is deterministic; -race would only slow this down, so it
// runs in the step without -race.

// TestExperimentPrecisePrefixOnMooncake is docs/experiments.md section 4
// in small: on the first 800 Mooncake requests in simulation,
// precise-prefix predicts the servers' hit rate within 1 point, serves at
// least the hits of the approximate prefix routers with a TTFT p50 no
// worse than theirs by more than 2 %, and a 60 s event lag costs it more
// than half a point of server hits.
func TestExperimentPrecisePrefixOnMooncake(t *testing.T) {
	trace := experimentTrace(t, "mooncake/conversation_trace.jsonl")
	run := func(router string, extra ...string) *metrics.Summary {
		args := append([]string{"replay", "--trace", trace, "--sim", "4", "--mock-profile", "long-context",
			"--time-scale", "2", "--max-requests", strconv.Itoa(800), "--seed", "1", "--policy", router}, extra...)
		_, s := simReplay(t, args...)
		return s
	}
	pp := run("precise-prefix")
	t.Logf("precise-prefix: server hit %.2f %%, predicted %.2f %%, TTFT p50 %.0f ms",
		100*pp.HitRate.Server, 100*pp.HitRate.Predicted, pp.TTFT.P50)
	if d := pp.HitRate.Predicted - pp.HitRate.Server; d > 0.01 || d < -0.01 {
		t.Errorf("predicted hit %.4f, server %.4f: want within 1 point", pp.HitRate.Predicted, pp.HitRate.Server)
	}
	for _, router := range []string{"prefix-cache", "cache-aware", "approx-prefix"} {
		s := run(router)
		t.Logf("%s: server hit %.2f %%, TTFT p50 %.0f ms", router, 100*s.HitRate.Server, s.TTFT.P50)
		if pp.HitRate.Server < s.HitRate.Server {
			t.Errorf("server hit %.4f, below %s's %.4f", pp.HitRate.Server, router, s.HitRate.Server)
		}
		if pp.TTFT.P50 > 1.02*s.TTFT.P50 {
			t.Errorf("TTFT p50 %.0f ms, more than 2 %% over %s's %.0f ms", pp.TTFT.P50, router, s.TTFT.P50)
		}
	}
	late := run("precise-prefix", "--kv-event-delay", "60s")
	t.Logf("precise-prefix, 60 s lag: server hit %.2f %%, predicted %.2f %%", 100*late.HitRate.Server, 100*late.HitRate.Predicted)
	if !(late.HitRate.Server < pp.HitRate.Server-0.005) {
		t.Errorf("60 s lag: server hit %.4f, want over half a point below %.4f without lag", late.HitRate.Server, pp.HitRate.Server)
	}
}
