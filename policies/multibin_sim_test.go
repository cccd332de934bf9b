package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// batchServe is the closed form's backend: a member of a batch decodes its
// output at perToken per token, so a static batch occupies the backend for
// its longest member × perToken.
func batchServe(perToken time.Duration) simServe {
	return func(now time.Duration, _ int, _ int, reqs []*traces.Request) []simDone {
		out := make([]simDone, len(reqs))
		for i, r := range reqs {
			out[i] = simDone{at: now + time.Duration(r.OutputTokens)*perToken, tbt: perToken}
		}
		return out
	}
}

// uniformBacklog is n Requests with output lengths uniform on the integers
// 1..20, all arriving at 0 (a saturated backlog), seeded.
func uniformBacklog(n int, seed uint64) []*traces.Request {
	rng := rand.New(rand.NewPCG(seed, 1))
	rs := make([]*traces.Request, n)
	for i := range rs {
		rs[i] = &traces.Request{ID: fmt.Sprintf("u%d", i), InputTokens: 10, OutputTokens: 1 + rng.IntN(20)}
	}
	return rs
}

// saturatedThroughput serves reqs with a multi-bin Queue on two static
// backends and returns requests per second and the Queue.
func saturatedThroughput(t *testing.T, p Params, reqs []*traces.Request) (float64, *multiBin) {
	t.Helper()
	p["b_min"], p["b_max"] = traces.ParamInt(8), traces.ParamInt(8)
	m := newMB(t, p)
	fresh := make([]*traces.Request, len(reqs))
	for i, r := range reqs {
		c := *r
		fresh[i] = &c
	}
	sim := newQueueSim(t, m, 2, Capacity{}, batchServe(10*time.Millisecond))
	sim.run(fresh, time.Duration(math.MaxInt64))
	if len(sim.finished) != len(reqs) {
		t.Fatalf("finished %d of %d", len(sim.finished), len(reqs))
	}
	end := sim.finished[len(sim.finished)-1].end
	return float64(len(reqs)) / end.Seconds(), m
}

// TestMultiBinSaturatedGainMatchesClosedForm checks the queue against
// the closed form of docs/architecture.md: B_MIN = B_MAX = 8, oracle lengths uniform on
// 1..20, static batches served in longest member × 10 ms, saturated.
func TestMultiBinSaturatedGainMatchesClosedForm(t *testing.T) {
	reqs := uniformBacklog(16000, 42)
	base, _ := saturatedThroughput(t, Params{"k": traces.ParamInt(1)}, reqs)
	tests := []struct {
		name string
		p    Params
	}{
		{"K=2 equal-count edges", Params{"boundaries": traces.ParamString("11")}},
		{"K=4 equal-count edges", Params{"boundaries": traces.ParamString("6,11,16")}},
		{"K=2 Algorithm 6 warm-up", Params{"k": traces.ParamInt(2), "warmup_requests": traces.ParamInt(200)}},
		{"K=4 Algorithm 6 warm-up", Params{"k": traces.ParamInt(4), "warmup_requests": traces.ParamInt(200)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			thr, m := saturatedThroughput(t, tc.p, reqs)
			var cuts []int
			for _, b := range m.bounds[1:] {
				cuts = append(cuts, b.Lo)
			}
			want, err := MultiBinGainDiscrete(1, 20, 8, cuts)
			if err != nil {
				t.Fatal(err)
			}
			got := thr/base - 1
			t.Logf("bins %v: measured %+.1f %% (%.1f vs %.1f req/s), closed form %+.1f %%",
				m.bounds, 100*got, thr, base, 100*want)
			if math.Abs(got-want) > 0.03 {
				t.Errorf("measured gain %+.1f %% is not within 3 points of the closed form %+.1f %%", 100*got, 100*want)
			}
		})
	}
}
