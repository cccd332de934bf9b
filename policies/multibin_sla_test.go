package policies

import (
	"math"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// loadServe is a backend whose decode TBT grows with its running batch:
// perSeq × (requests running after the dispatch); a Request decodes its
// output at that TBT.
func loadServe(perSeq time.Duration) simServe {
	return func(now time.Duration, _ int, running int, reqs []*traces.Request) []simDone {
		tbt := perSeq * time.Duration(running+len(reqs))
		out := make([]simDone, len(reqs))
		for i, r := range reqs {
			out[i] = simDone{at: now + time.Duration(r.OutputTokens)*tbt, tbt: tbt}
		}
		return out
	}
}

// TestMultiBinSLAControllerConverges closes the loop: decode TBT is 1 ms
// per running request, D_SLA 20 ms ± 2 ms, so the controllers must hold
// the running batch near 20 (B_MAX 128 would give 128 ms).
func TestMultiBinSLAControllerConverges(t *testing.T) {
	for _, mode := range []string{mbStatic, mbContinuous} {
		t.Run(mode, func(t *testing.T) {
			m := newMB(t, Params{"mode": traces.ParamString(mode), "boundaries": traces.ParamString("11"), "d_sla": traces.ParamString("20ms"), "eps_d": traces.ParamString("2ms")})
			reqs := uniformBacklog(20000, 3)
			sim := newQueueSim(t, m, 2, Capacity{}, loadServe(time.Millisecond))
			sim.run(reqs, time.Duration(math.MaxInt64))
			for i := range m.ctrl {
				k := m.ctrl[i]
				t.Logf("bin %d: τ_avg %.1f ms, b_avg %.1f, interval [%d, %d], %d updates",
					i, k.tauAvg*1e3, k.bAvg, k.bLow, k.bHigh, k.updates)
				if k.tauAvg < 0.015 || k.tauAvg > 0.025 || k.bAvg > 30 {
					t.Errorf("bin %d: τ_avg %.1f ms, b_avg %.1f: not near D_SLA 20 ms and a running batch of 20", i, k.tauAvg*1e3, k.bAvg)
				}
			}
		})
	}
}
