package reports

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Verdict says which policy to pick for the stated SLO: the one with the
// highest mean SLA attainment over the seeds, its margin over the
// runner-up with a 95 % confidence interval of the paired difference
// across seeds, and a tie when that interval holds 0.
type Verdict struct {
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
}

// VerdictRow is one policy's attainment over the seeds.
type VerdictRow struct {
	// Policy is the run's policy name.
	Policy string
	// Mean is the mean SLA attainment in percent; Lo and Hi the 95 %
	// confidence interval of the mean (NaN with one seed).
	Mean, Lo, Hi float64
	// Goodput is the mean goodput, req/s.
	Goodput float64
}

// DecideVerdict builds the verdict from each policy's runs, one per seed
// in the same seed order for every policy; nil with fewer than two
// policies.
func DecideVerdict(policies []string, runs map[string][]*Summary) *Verdict {
	if len(policies) < 2 {
		return nil
	}
	v := &Verdict{Seeds: len(runs[policies[0]])}
	for _, p := range policies {
		att, good := attainments(runs[p])
		lo, hi := meanCI(att)
		v.Rows = append(v.Rows, VerdictRow{Policy: p, Mean: stat.Mean(att, nil), Lo: lo, Hi: hi, Goodput: stat.Mean(good, nil)})
		v.Seeds = min(v.Seeds, len(att))
	}
	if s := runs[policies[0]]; len(s) > 0 {
		v.SLO = sloText(s[0].Options.SLO)
	}
	sort.SliceStable(v.Rows, func(i, j int) bool {
		if v.Rows[i].Mean != v.Rows[j].Mean {
			return v.Rows[i].Mean > v.Rows[j].Mean
		}
		return v.Rows[i].Goodput > v.Rows[j].Goodput
	})
	v.Pick, v.RunnerUp = v.Rows[0].Policy, v.Rows[1].Policy
	a, _ := attainments(runs[v.Pick])
	b, _ := attainments(runs[v.RunnerUp])
	n := min(len(a), len(b))
	diff := make([]float64, n)
	for i := range n {
		diff[i] = a[i] - b[i]
	}
	v.Margin = stat.Mean(diff, nil)
	v.Lo, v.Hi = meanCI(diff)
	v.Tie = (v.Lo <= 0 && v.Hi >= 0) || (math.IsNaN(v.Lo) && v.Margin == 0)
	return v
}

// attainments returns each run's SLA attainment in percent and goodput.
func attainments(runs []*Summary) (att, good []float64) {
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

// Headline is the verdict in one sentence.
func (v *Verdict) Headline() string {
	switch {
	case v.Tie && math.IsNaN(v.Lo):
		return fmt.Sprintf("%s and %s tie on SLA attainment (%.1f %% each) over one seed; run --seeds 3 or more for a confidence interval",
			v.Pick, v.RunnerUp, v.Rows[0].Mean)
	case v.Tie:
		return fmt.Sprintf("no clear winner: %s and %s tie on SLA attainment (difference %+.1f pt, 95 %% CI %+.1f to %+.1f pt over %d seeds, inside the noise)",
			v.Pick, v.RunnerUp, v.Margin, v.Lo, v.Hi, v.Seeds)
	case math.IsNaN(v.Lo):
		return fmt.Sprintf("pick %s: SLA attainment %.1f %%, %+.1f pt over %s on one seed (no confidence interval; run --seeds 3 or more)",
			v.Pick, v.Rows[0].Mean, v.Margin, v.RunnerUp)
	}
	return fmt.Sprintf("pick %s: SLA attainment %.1f %%, %+.1f pt over %s (95 %% CI %+.1f to %+.1f pt over %d seeds)",
		v.Pick, v.Rows[0].Mean, v.Margin, v.RunnerUp, v.Lo, v.Hi, v.Seeds)
}

// WriteText prints the verdict and each policy's attainment.
func (v *Verdict) WriteText(w io.Writer) {
	fmt.Fprintf(w, "verdict for SLO %s: %s\n", v.SLO, v.Headline())
	if v.ProfileNote != "" {
		fmt.Fprintf(w, "  %s\n", v.ProfileNote)
	}
	for _, r := range v.Rows {
		fmt.Fprintf(w, "  %-28s attainment %s, goodput %.3g req/s\n", r.Policy, r.interval(), r.Goodput)
	}
}

func (r VerdictRow) interval() string {
	if math.IsNaN(r.Lo) {
		return fmt.Sprintf("%.1f %%", r.Mean)
	}
	return fmt.Sprintf("%.1f %% (95 %% CI %.1f to %.1f)", r.Mean, r.Lo, r.Hi)
}

// writeVerdict writes the report's opening "Verdict" section (nothing
// without a verdict).
func writeVerdict(w io.Writer, v *Verdict) {
	if v == nil {
		return
	}
	fmt.Fprintf(w, "## Verdict\n\n**%s.** SLO: %s. ", capitalize(v.Headline()), v.SLO)
	fmt.Fprintf(w, "Each policy ran the workload and arrivals of %d seed(s); the margin is the mean of the "+
		"per-seed differences with its 95 %% Student-t confidence interval, and a difference whose interval "+
		"holds 0 is called a tie.", v.Seeds)
	if v.ProfileNote != "" {
		fmt.Fprintf(w, " %s.", capitalize(strings.TrimSuffix(v.ProfileNote, ".")))
	}
	fmt.Fprintf(w, "\n\n")
	rows := make([][]string, 0, len(v.Rows))
	for _, r := range v.Rows {
		rows = append(rows, []string{mdEscape(r.Policy), r.interval(), fmt.Sprintf("%.3g", r.Goodput)})
	}
	mdTable(w, []string{"policy", "SLA attainment", "goodput req/s"}, "lrr", rows)
}
