package reports

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// Prediction compares a simulated replay of a run (Predicted) with the
// run as measured (Measured).
type Prediction struct {
	// Profile names the engine profile the simulation ran.
	Profile string
	// Measured and Predicted are the two runs.
	Measured, Predicted *Summary
	// Rows are the compared figures.
	Rows []PredictionRow
}

// PredictionRow is one compared figure.
type PredictionRow struct {
	// Metric names the figure ("TTFT p50").
	Metric string
	// Unit is "ms", "req/s", "tok/s" or "%".
	Unit string
	// Measured and Predicted are the figure in Unit (NaN: not known).
	Measured, Predicted float64
	// Err is the prediction error: (predicted − measured) / measured in
	// percent, or, for a rate in %, the difference in percentage points;
	// NaN when either side is not known.
	Err float64
	// Points reports that Err is in percentage points.
	Points bool
}

// ComparePrediction builds the comparison of TTFT p50/p90/p99, TPOT
// p50/p90, E2E p50/p90, throughput and the server's prefix hit rate.
func ComparePrediction(profile string, measured, predicted *Summary) *Prediction {
	p := &Prediction{Profile: profile, Measured: measured, Predicted: predicted}
	add := func(metric, unit string, m, q float64) {
		r := PredictionRow{Metric: metric, Unit: unit, Measured: m, Predicted: q, Err: math.NaN()}
		if m > 0 && !math.IsNaN(q) {
			r.Err = 100 * (q - m) / m
		}
		p.Rows = append(p.Rows, r)
	}
	dist := func(name string, f func(*Summary) Dist, ps ...string) {
		for _, q := range ps {
			pick := map[string]func(Dist) float64{"p50": func(d Dist) float64 { return d.P50 },
				"p90": func(d Dist) float64 { return d.P90 }, "p99": func(d Dist) float64 { return d.P99 }}[q]
			m, pr := f(measured), f(predicted)
			add(name+" "+q, "ms", known(m, pick), known(pr, pick))
		}
	}
	dist("TTFT", func(s *Summary) Dist { return s.TTFT }, "p50", "p90", "p99")
	dist("TPOT", func(s *Summary) Dist { return s.TPOT }, "p50", "p90")
	dist("E2E", func(s *Summary) Dist { return s.E2E }, "p50", "p90")
	add("throughput", "req/s", measured.Throughput.Requests, predicted.Throughput.Requests)
	add("output throughput", "tok/s", measured.Throughput.OutputTokens, predicted.Throughput.OutputTokens)
	hm, hp := 100*measured.HitRate.Server, 100*predicted.HitRate.Server
	hit := PredictionRow{Metric: "server hit rate", Unit: "%", Measured: hm, Predicted: hp, Err: hp - hm, Points: true}
	if measured.OK == 0 || predicted.OK == 0 || math.IsNaN(hm) || math.IsNaN(hp) {
		hit.Err = math.NaN()
	}
	p.Rows = append(p.Rows, hit)
	return p
}

// known returns pick(d), NaN for an empty distribution.
func known(d Dist, pick func(Dist) float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	return pick(d)
}

// WriteTable prints the comparison as an aligned text table.
func (p *Prediction) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "metric\tmeasured\tpredicted\terror\t")
	for _, r := range p.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Metric, r.value(r.Measured), r.value(r.Predicted), r.errText())
	}
	return tw.Flush()
}

func (r PredictionRow) value(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g %s", v, r.Unit)
}

func (r PredictionRow) errText() string {
	switch {
	case math.IsNaN(r.Err):
		return "n/a"
	case r.Points:
		return fmt.Sprintf("%+.1f pt", r.Err)
	}
	return fmt.Sprintf("%+.1f %%", r.Err)
}

// writePrediction writes the report's "Prediction error" section (nothing
// without a prediction).
func writePrediction(w io.Writer, p *Prediction) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "## Prediction error\n\n")
	fmt.Fprintf(w, "The measured run replayed in virtual time on %d simulated engines with the profile %s: "+
		"the same requests, arrival times, router and queue. Error is (predicted − measured) / measured; "+
		"for the hit rate, the difference in percentage points. n/a: the figure was not measured on one side.\n\n",
		len(p.Predicted.Header.Backends), mdEscape(p.Profile))
	rows := make([][]string, 0, len(p.Rows))
	for _, r := range p.Rows {
		rows = append(rows, []string{r.Metric, r.value(r.Measured), r.value(r.Predicted), r.errText()})
	}
	mdTable(w, []string{"metric", "measured", "predicted", "error"}, "lrrr", rows)
}
