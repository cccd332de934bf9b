package traces

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// vtcSuiteSpec: the synthetic workloads of the VTC paper's artifact
// (Ying1123/VTC-artifact, fair_bench/exp_suite.py and trace.py, mode
// "uniform"): each user sends at a constant rate from a random phase, 256
// input and 256 output tokens per request (the artifact draws from
// [256, 257), which is always 256).
func vtcSuiteSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "vtc-suite",
		Doc: "the VTC artifact's synthetic fairness workloads: suite=overload (users at 1.5 and 3 req/s, 6 min), " +
			"overload-multi (8 users, 3 at 0.4 and 5 at 0.6 req/s, 6 min), on-off-overload (2 and 3 req/s, 10 min, " +
			"u0 silent in every odd minute), dist-shift (15 min: 5 min of 0.5 on-off and 2 req/s, 5 of 1 and 1, 5 of " +
			"0.5 and 1.5), overload-weighted (4 users at 1 req/s each, 6 min); constant-rate arrivals, 256 input and " +
			"256 output tokens",
		Params: []ParamSpec{
			{"suite", KindString, "overload", "overload, overload-multi, on-off-overload, dist-shift or overload-weighted"},
			{"input_len", KindInt, "256", "prompt tokens per request"},
			{"output_len", KindInt, "256", "output tokens per request"},
			{"rate", KindFloat, "1", "scales every user's rate (1 = the artifact's)"},
			{"requests", KindInt, "0", "most requests (0 = all the suite has)"},
		},
		build: buildVTCSuite,
	}
}

// vtcPhase is one stretch of a suite: per-user rates for a duration,
// user 0 silent in odd periods of onOff (0: always on).
type vtcPhase struct {
	rates    []float64
	duration time.Duration
	onOff    time.Duration
}

// vtcSuites are the artifact's paper_suite entries used here; the
// weighted suite is ours (four equal users for weights 1..4).
var vtcSuites = map[string][]vtcPhase{
	"overload":          {{[]float64{1.5, 3}, 6 * time.Minute, 0}},
	"overload-multi":    {{[]float64{0.4, 0.4, 0.4, 0.6, 0.6, 0.6, 0.6, 0.6}, 6 * time.Minute, 0}},
	"on-off-overload":   {{[]float64{2, 3}, 10 * time.Minute, time.Minute}},
	"dist-shift":        {{[]float64{0.5, 2}, 5 * time.Minute, time.Minute}, {[]float64{1, 1}, 5 * time.Minute, 0}, {[]float64{0.5, 1.5}, 5 * time.Minute, 0}},
	"overload-weighted": {{[]float64{1, 1, 1, 1}, 6 * time.Minute, 0}},
}

// buildVTCSuite builds the vtc-suite workload from p, seeded by seed.
func buildVTCSuite(p *params, seed uint64) (Source, error) {
	name := p.raw("suite")
	phases, ok := vtcSuites[name]
	if !ok {
		return nil, fmt.Errorf("parameter suite: unknown suite %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(vtcSuites)), ", "))
	}
	in, out := p.tokens("input_len", 1), p.tokens("output_len", 1)
	scale, limit := p.positive("rate"), p.int("requests", 0)
	if p.err != nil {
		return nil, p.err
	}
	g := newGenerator(seed, "vtc-suite", 0)
	var reqs []Request
	var start time.Duration
	for _, ph := range phases {
		for u, rate := range ph.rates {
			rate *= scale
			n := int(rate * ph.duration.Seconds())
			at := start.Seconds() + g.rng.Float64()/rate
			for j := 0; j < n; j++ {
				at += 1 / rate
				if ph.onOff > 0 && u == 0 && int(math.Floor(at/ph.onOff.Seconds()))&1 == 1 {
					continue
				}
				id := fmt.Sprintf("vs%d", len(reqs))
				q := SynthWords(contentKey(seed, "vtc-suite", len(reqs)), in)
				reqs = append(reqs, single(id, fmt.Sprintf("u%d", u), secondsDur(at), "", 0, q, in, out))
			}
		}
		start += ph.duration
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Arrival < reqs[j].Arrival })
	if limit > 0 && len(reqs) > limit {
		reqs = reqs[:limit]
	}
	return NewSliceSource(reqs), nil
}
