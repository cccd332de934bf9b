package verdict

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/tracebench/tracebench/metrics"
)

// RankAgreement says how well simulated runs order the policies as the
// measured runs do on one figure.
type RankAgreement struct {
	// ID identifies the figure; Metric is its display label (a
	// PredictionRow's).
	ID     metrics.MetricID
	Metric string
	// Tau is Kendall's τ-b between the measured and the predicted figures
	// over the policies, from −1 (reversed) to 1 (same order); NaN with
	// fewer than two policies or when one side has every value tied.
	Tau float64
	// LiveWinner and SimWinner are the best policy measured and
	// predicted (lowest latency, highest rate); "" when not known.
	LiveWinner, SimWinner string
}

// Same reports whether both sides name the same winner.
func (a RankAgreement) Same() bool { return a.LiveWinner != "" && a.LiveWinner == a.SimWinner }

// RankAgreements compares, per metric, the order of the policies'
// measured and predicted figures: preds[i] is policies[i]'s comparison
// (rows in the same metric order for every policy).
func RankAgreements(policies []string, preds []*Prediction) []RankAgreement {
	if len(preds) == 0 {
		return nil
	}
	var out []RankAgreement
	for j, row := range preds[0].Rows {
		m, p := make([]float64, len(preds)), make([]float64, len(preds))
		for i, pr := range preds {
			m[i], p[i] = pr.Rows[j].Measured, pr.Rows[j].Predicted
		}
		hi := row.ID.HigherIsBetter()
		out = append(out, RankAgreement{ID: row.ID, Metric: row.Metric, Tau: KendallTau(m, p),
			LiveWinner: bestPolicy(policies, m, hi), SimWinner: bestPolicy(policies, p, hi)})
	}
	return out
}

// bestPolicy names the policy with the best value (NaN values left out; ""
// when none is known).
func bestPolicy(policies []string, v []float64, higher bool) string {
	k := -1
	for i, x := range v {
		if math.IsNaN(x) {
			continue
		}
		if k < 0 || (higher && x > v[k]) || (!higher && x < v[k]) {
			k = i
		}
	}
	if k < 0 {
		return ""
	}
	return policies[k]
}

// KendallTau is Kendall's τ-b of x and y (pairs with a NaN left out):
// (concordant − discordant) / √((n0 − ties in x)(n0 − ties in y)); NaN
// when either side has no untied pair.
func KendallTau(x, y []float64) float64 {
	var c, d, tx, ty, n0 float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if math.IsNaN(x[i]) || math.IsNaN(x[j]) || math.IsNaN(y[i]) || math.IsNaN(y[j]) {
				continue
			}
			n0++
			s := (x[i] - x[j]) * (y[i] - y[j])
			switch {
			case x[i] == x[j] && y[i] == y[j]:
				tx, ty = tx+1, ty+1
			case x[i] == x[j]:
				tx++
			case y[i] == y[j]:
				ty++
			case s > 0:
				c++
			default:
				d++
			}
		}
	}
	den := math.Sqrt((n0 - tx) * (n0 - ty))
	if den == 0 {
		return math.NaN()
	}
	return (c - d) / den
}

// WriteAgreement prints the rank agreement as an aligned text table.
func WriteAgreement(w io.Writer, as []RankAgreement) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tKendall τ\tbest measured\tbest predicted\tsame winner")
	for _, a := range as {
		tau := "n/a"
		if !math.IsNaN(a.Tau) {
			tau = fmt.Sprintf("%+.2f", a.Tau)
		}
		same := "no"
		if a.Same() {
			same = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", a.Metric, tau, orNA(a.LiveWinner), orNA(a.SimWinner), same)
	}
	return tw.Flush()
}

// orNA is s, or "n/a" when empty.
func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

// MeanPrediction is the comparison of the means over several runs of
// one policy (seeds): every row's measured and predicted figures
// averaged over the runs that know them, and the error of the means.
func MeanPrediction(profile string, preds []*Prediction) *Prediction {
	if len(preds) == 0 {
		return nil
	}
	out := &Prediction{Profile: profile, Measured: preds[0].Measured, Predicted: preds[0].Predicted}
	for j, row := range preds[0].Rows {
		var ms, ps []float64
		for _, p := range preds {
			ms, ps = append(ms, p.Rows[j].Measured), append(ps, p.Rows[j].Predicted)
		}
		r := PredictionRow{ID: row.ID, Metric: row.Metric, Unit: row.Unit, Points: row.Points, Measured: nanMean(ms), Predicted: nanMean(ps), Err: math.NaN()}
		switch {
		case math.IsNaN(r.Measured) || math.IsNaN(r.Predicted):
		case r.Points:
			r.Err = r.Predicted - r.Measured
		case r.Measured > 0:
			r.Err = 100 * (r.Predicted - r.Measured) / r.Measured
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}

// nanMean is the mean of the values that are not NaN (NaN when none is).
func nanMean(xs []float64) float64 {
	var s float64
	var n int
	for _, x := range xs {
		if !math.IsNaN(x) {
			s, n = s+x, n+1
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}
