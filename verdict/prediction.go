package verdict

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"github.com/tracebench/tracebench/metrics"
)

// Prediction compares a simulated replay of a run (Predicted) with the
// run as measured (Measured).
type Prediction struct {
	// Profile names the engine profile the simulation ran.
	Profile string
	// Measured and Predicted are the two runs.
	Measured, Predicted *metrics.Summary
	// Rows are the compared figures.
	Rows []PredictionRow
}

// PredictionRow is one compared figure.
type PredictionRow struct {
	// ID identifies the figure; Metric is its display label ("TTFT
	// p50", ID.Label()).
	ID     metrics.MetricID
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
func ComparePrediction(profile string, measured, predicted *metrics.Summary) *Prediction {
	p := &Prediction{Profile: profile, Measured: measured, Predicted: predicted}
	add := func(id metrics.MetricID, unit string, m, q float64) {
		r := PredictionRow{ID: id, Metric: id.Label(), Unit: unit, Measured: m, Predicted: q, Err: math.NaN()}
		if m > 0 && !math.IsNaN(q) {
			r.Err = 100 * (q - m) / m
		}
		p.Rows = append(p.Rows, r)
	}
	for _, d := range latencyRows {
		add(d.id, "ms", known(d.of(measured), d.at), known(d.of(predicted), d.at))
	}
	add(metrics.MetricThroughput, "req/s", measured.Throughput.Requests, predicted.Throughput.Requests)
	add(metrics.MetricOutputThroughput, "tok/s", measured.Throughput.OutputTokens, predicted.Throughput.OutputTokens)
	hm, hp := 100*measured.HitRate.Server, 100*predicted.HitRate.Server
	hit := PredictionRow{ID: metrics.MetricServerHitRate, Metric: metrics.MetricServerHitRate.Label(), Unit: "%", Measured: hm, Predicted: hp,
		Err: hp - hm, Points: true}
	if measured.OK == 0 || predicted.OK == 0 || math.IsNaN(hm) || math.IsNaN(hp) {
		hit.Err = math.NaN()
	}
	p.Rows = append(p.Rows, hit)
	return p
}

// latencyRow is a latency figure of a prediction: its identity, the
// distribution of a Summary it reads and the percentile it takes.
type latencyRow struct {
	id metrics.MetricID
	of func(*metrics.Summary) metrics.Dist
	at func(metrics.Dist) float64
}

// latencyRows are the latency figures a prediction compares, in order.
var latencyRows = func() []latencyRow {
	ttft := func(s *metrics.Summary) metrics.Dist { return s.TTFT }
	tpot := func(s *metrics.Summary) metrics.Dist { return s.TPOT }
	e2e := func(s *metrics.Summary) metrics.Dist { return s.E2E }
	p50 := func(d metrics.Dist) float64 { return d.P50 }
	p90 := func(d metrics.Dist) float64 { return d.P90 }
	p99 := func(d metrics.Dist) float64 { return d.P99 }
	return []latencyRow{{metrics.MetricTTFTP50, ttft, p50}, {metrics.MetricTTFTP90, ttft, p90}, {metrics.MetricTTFTP99, ttft, p99},
		{metrics.MetricTPOTP50, tpot, p50}, {metrics.MetricTPOTP90, tpot, p90}, {metrics.MetricE2EP50, e2e, p50}, {metrics.MetricE2EP90, e2e, p90}}
}()

// known returns pick(d), NaN for an empty distribution.
func known(d metrics.Dist, pick func(metrics.Dist) float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	return pick(d)
}

// Err returns the prediction error of figure id (ok false when the
// figure is not compared or unknown on either side).
func (p *Prediction) Err(id metrics.MetricID) (float64, bool) {
	for _, r := range p.Rows {
		if r.ID == id && !math.IsNaN(r.Err) {
			return r.Err, true
		}
	}
	return math.NaN(), false
}

// WriteTable prints the comparison as an aligned text table.
func (p *Prediction) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "metric\tmeasured\tpredicted\terror\t")
	for _, r := range p.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", r.Metric, r.Value(r.Measured), r.Value(r.Predicted), r.ErrText())
	}
	return tw.Flush()
}

func (r PredictionRow) Value(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.4g %s", v, r.Unit)
}

func (r PredictionRow) ErrText() string {
	switch {
	case math.IsNaN(r.Err):
		return "n/a"
	case r.Points:
		return fmt.Sprintf("%+.1f pt", r.Err)
	}
	return fmt.Sprintf("%+.1f %%", r.Err)
}
