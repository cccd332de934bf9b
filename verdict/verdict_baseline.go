package verdict

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/tracebench/tracebench/metrics"
)

// Baseline compares a verdict's pick with a baseline policy on the
// same paired seeds: when the best two tie, the pick's margin over the
// baseline still says whether the leading group is worth deploying.
type Baseline struct {
	// Policy names the baseline ("" when none was compared).
	Policy string
	// Margin is the mean paired difference, pick minus baseline, in the
	// verdict's DiffUnit; Lo and Hi its 95 % confidence interval (NaN
	// with fewer than two seeds).
	Margin, Lo, Hi float64
}

// Clear reports whether the interval excludes 0: the pick differs from
// the baseline with 95 % confidence.
func (b Baseline) Clear() bool {
	return b.Policy != "" && !math.IsNaN(b.Lo) && (b.Lo > 0 || b.Hi < 0)
}

// CompareBaseline sets v.Baseline from vals, each policy's figure per
// seed in the same seed order as the verdict's. It does nothing when the
// baseline is the pick or has no figures.
func (v *Verdict) CompareBaseline(policy string, vals map[string][]float64) {
	if v == nil || policy == "" || policy == v.Pick || len(vals[policy]) == 0 {
		return
	}
	diff := pairedDiff(vals[v.Pick], vals[policy])
	lo, hi := meanCI(diff)
	v.Baseline = Baseline{Policy: policy, Margin: stat.Mean(diff, nil), Lo: lo, Hi: hi}
}

// CompareBaselineRuns is CompareBaseline on each run's SLA attainment
// in percent, the figure DecideVerdict ranks runs by.
func (v *Verdict) CompareBaselineRuns(policy string, runs map[string][]*metrics.Summary) {
	vals := make(map[string][]float64, len(runs))
	for p, rs := range runs {
		vals[p], _ = attainments(rs)
	}
	v.CompareBaseline(policy, vals)
}

// baselineText is the pick against the baseline as one clause ("" when
// not compared).
func (v *Verdict) baselineText() string {
	b := v.Baseline
	if b.Policy == "" || b.Policy == v.RunnerUp {
		return ""
	}
	d := func(x float64) string { return verdictNum(x, v.DiffUnit, true) }
	if math.IsNaN(b.Lo) {
		return fmt.Sprintf("%s over %s: %s %s on one seed", v.Pick, b.Policy, d(b.Margin), v.DiffUnit)
	}
	word := "ahead of"
	switch {
	case b.Hi < 0:
		word = "behind"
	case !b.Clear():
		word = "not clearly ahead of"
	}
	return fmt.Sprintf("%s is %s %s by %s %s (95 %% CI %s to %s %s)", v.Pick, word, b.Policy,
		d(b.Margin), v.DiffUnit, d(b.Lo), d(b.Hi), v.DiffUnit)
}

// clampCI keeps a row's interval inside the values its unit can take: a
// rate is never negative, a percentage stays within 0–100.
func clampCI(lo, hi float64, unit string) (float64, float64) {
	switch unit {
	case "%":
		return math.Max(lo, 0), math.Min(hi, 100)
	case "req/s", "tok/s":
		return math.Max(lo, 0), hi
	}
	return lo, hi
}
