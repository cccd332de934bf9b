package verdict

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tracebench/tracebench/metrics"
)

// Verdict says which policy to pick for the stated SLO: the one with the
// highest mean SLA attainment over the seeds, its margin over the
// runner-up with a 95 % confidence interval of the paired difference
// across seeds, and a tie when that interval holds 0.
type Verdict struct {
	// Metric names what decides ("SLA attainment", "sustained rate"),
	// Unit its unit ("%", "req/s") and DiffUnit a difference's ("pt").
	Metric, Unit, DiffUnit string
	// SLO is the stated SLO, as text.
	SLO string
	// Seeds is the number of seeds every policy ran.
	Seeds int
	// Rows are the policies, best first.
	Rows []VerdictRow
	// Pick and RunnerUp name the best two policies.
	Pick, RunnerUp string
	// Margin is the mean paired difference of attainment, pick minus
	// runner-up, in percentage points; Lo and Hi its 95 % confidence
	// interval (NaN with fewer than two seeds).
	Margin, Lo, Hi float64
	// Tie is set when the interval holds 0 (or cannot be computed and the
	// margin is 0).
	Tie bool
	// ProfileNote states the expected prediction error of the engine
	// profile the runs simulated ("" for live targets).
	ProfileNote string
	// Withheld, when set, says why no policy is picked (live runs that
	// did not start from the same cache state) and how to fix it; the
	// rows are still shown.
	Withheld string
	// LiveNote states how much the conditions moved between live runs
	// ("" when not measured).
	LiveNote string
	// Baseline compares the pick with a baseline policy (see
	// CompareBaseline; zero when not compared).
	Baseline Baseline
}

// VerdictRow is one policy's figure over the seeds.
type VerdictRow struct {
	// Policy is the run's policy name.
	Policy string
	// Mean is the mean of the deciding figure over the seeds, in the
	// verdict's Unit; Lo and Hi the 95 % confidence interval of the mean
	// (NaN with one seed).
	Mean, Lo, Hi float64
	// Goodput is the mean goodput, req/s (NaN when not the SLA verdict).
	Goodput float64
}

// DecideVerdict builds the verdict on SLA attainment from each policy's
// runs, one per seed in the same seed order for every policy; nil with
// fewer than two policies.
func DecideVerdict(policies []string, runs map[string][]*metrics.Summary) *Verdict {
	vals, good := map[string][]float64{}, map[string][]float64{}
	for _, p := range policies {
		vals[p], good[p] = attainments(runs[p])
	}
	v := decide(policies, vals, good, "SLA attainment", "%", "pt")
	if v != nil && len(runs[policies[0]]) > 0 {
		v.SLO = metrics.SLOText(runs[policies[0]][0].Options.SLO)
	}
	return v
}

// DecideCapacityVerdict builds the verdict of a sweep: the policy with the
// highest sustained rate (req/s) meeting the SLA, per seed.
func DecideCapacityVerdict(policies []string, sustained map[string][]float64, slo metrics.SLO) *Verdict {
	v := decide(policies, sustained, nil, "sustained rate", "req/s", "req/s")
	if v != nil {
		v.SLO = metrics.SLOText(slo)
	}
	return v
}

// DecideSweepVerdict is DecideCapacityVerdict in the sweep's own unit:
// the most sustained users for a sweep over users.
func DecideSweepVerdict(s *Sweep, policies []string, sustained map[string][]float64) *Verdict {
	if s.Vary != VaryUsers {
		return DecideCapacityVerdict(policies, sustained, s.SLO)
	}
	v := decide(policies, sustained, nil, "sustained users", "users", "users")
	if v != nil {
		v.SLO = metrics.SLOText(s.SLO)
	}
	return v
}

// decide ranks the policies by the mean of vals (ties broken by the mean
// of sec, when given) and compares the best two across paired seeds.
func decide(policies []string, vals, sec map[string][]float64, metric, unit, diffUnit string) *Verdict {
	if len(policies) < 2 {
		return nil
	}
	v := &Verdict{Metric: metric, Unit: unit, DiffUnit: diffUnit, Seeds: len(vals[policies[0]])}
	for _, p := range policies {
		xs := vals[p]
		lo, hi := meanCI(xs)
		lo, hi = clampCI(lo, hi, unit)
		g := math.NaN()
		if sec != nil {
			g = stat.Mean(sec[p], nil)
		}
		v.Rows = append(v.Rows, VerdictRow{Policy: p, Mean: stat.Mean(xs, nil), Lo: lo, Hi: hi, Goodput: g})
		v.Seeds = min(v.Seeds, len(xs))
	}
	sort.SliceStable(v.Rows, func(i, j int) bool {
		if v.Rows[i].Mean != v.Rows[j].Mean {
			return v.Rows[i].Mean > v.Rows[j].Mean
		}
		return v.Rows[i].Goodput > v.Rows[j].Goodput
	})
	v.Pick, v.RunnerUp = v.Rows[0].Policy, v.Rows[1].Policy
	diff := pairedDiff(vals[v.Pick], vals[v.RunnerUp])
	v.Margin = stat.Mean(diff, nil)
	v.Lo, v.Hi = meanCI(diff)
	v.Tie = (v.Lo <= 0 && v.Hi >= 0) || (math.IsNaN(v.Lo) && v.Margin == 0)
	return v
}

// pairedDiff is a[i] − b[i] for every seed both have.
func pairedDiff(a, b []float64) []float64 {
	diff := make([]float64, min(len(a), len(b)))
	for i := range diff {
		diff[i] = a[i] - b[i]
	}
	return diff
}

// attainments returns each run's SLA attainment in percent and goodput.
func attainments(runs []*metrics.Summary) (att, good []float64) {
	for _, s := range runs {
		att = append(att, 100*s.SLA.Attainment)
		good = append(good, s.SLA.Goodput)
	}
	return att, good
}

// meanCI is the 95 % Student-t confidence interval of the mean of xs
// (NaN, NaN with fewer than two values).
func meanCI(xs []float64) (float64, float64) {
	n := len(xs)
	if n < 2 {
		return math.NaN(), math.NaN()
	}
	m, sd := stat.MeanStdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	h := t * sd / math.Sqrt(float64(n))
	return m - h, m + h
}

// verdictNum formats x in unit: one decimal for percent and points, three
// significant digits otherwise; signed adds the sign.
func verdictNum(x float64, unit string, signed bool) string {
	f := "%.3g"
	if unit == "%" || unit == "pt" {
		f = "%.1f"
	}
	if signed {
		f = "%+" + f[1:]
	}
	return fmt.Sprintf(f, x)
}

// Headline is the verdict in one sentence.
func (v *Verdict) Headline() string {
	h := v.headline()
	if b := v.baselineText(); b != "" && v.Withheld == "" {
		h += "; " + b
	}
	return h
}

// headline is the verdict between the best two in one sentence.
func (v *Verdict) headline() string {
	if v.Withheld != "" {
		return "no verdict: " + v.Withheld
	}
	best := verdictNum(v.Rows[0].Mean, v.Unit, false)
	d := func(x float64) string { return verdictNum(x, v.DiffUnit, true) }
	switch {
	case v.Tie && math.IsNaN(v.Lo):
		return fmt.Sprintf("%s tie on %s (%s %s each) over one seed; run --seeds 3 or more for a confidence interval",
			v.tiedAtTop(), v.Metric, best, v.Unit)
	case v.Tie:
		return fmt.Sprintf("no clear winner: %s and %s tie on %s (difference %s %s, 95 %% CI %s to %s %s over %d seeds, inside the noise)",
			v.Pick, v.RunnerUp, v.Metric, d(v.Margin), v.DiffUnit, d(v.Lo), d(v.Hi), v.DiffUnit, v.Seeds)
	case math.IsNaN(v.Lo):
		return fmt.Sprintf("pick %s: %s %s %s, %s %s over %s on one seed (no confidence interval; run --seeds 3 or more)",
			v.Pick, v.Metric, best, v.Unit, d(v.Margin), v.DiffUnit, v.RunnerUp)
	}
	return fmt.Sprintf("pick %s: %s %s %s, %s %s over %s (95 %% CI %s to %s %s over %d seeds)",
		v.Pick, v.Metric, best, v.Unit, d(v.Margin), v.DiffUnit, v.RunnerUp, d(v.Lo), d(v.Hi), v.DiffUnit, v.Seeds)
}

// tiedAtTop names every policy whose mean equals the best one's: "a
// and b" for two, "all 5 policies" when every one ties, else "a, b and c".
func (v *Verdict) tiedAtTop() string {
	var names []string
	for _, r := range v.Rows {
		if r.Mean == v.Rows[0].Mean {
			names = append(names, r.Policy)
		}
	}
	switch {
	case len(names) < 2:
		return v.Pick + " and " + v.RunnerUp
	case len(names) == len(v.Rows) && len(names) > 2:
		return fmt.Sprintf("all %d policies", len(names))
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// WriteText prints the verdict and each policy's figure.
func (v *Verdict) WriteText(w io.Writer) {
	fmt.Fprintf(w, "verdict for SLO %s: %s\n", v.SLO, v.Headline())
	for _, n := range []string{v.ProfileNote, v.LiveNote} {
		if n != "" {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	for _, r := range v.Rows {
		fmt.Fprintf(w, "  %-28s %s %s", r.Policy, v.Metric, r.Interval(v.Unit))
		if !math.IsNaN(r.Goodput) {
			fmt.Fprintf(w, ", goodput %.3g req/s", r.Goodput)
		}
		fmt.Fprintln(w)
	}
}

func (r VerdictRow) Interval(unit string) string {
	if math.IsNaN(r.Lo) {
		return verdictNum(r.Mean, unit, false) + " " + unit
	}
	return fmt.Sprintf("%s %s (95 %% CI %s to %s)", verdictNum(r.Mean, unit, false), unit, verdictNum(r.Lo, unit, false), verdictNum(r.Hi, unit, false))
}
