package reports

import (
	"math"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// Direction says which way a column's figure is better.
type direction int

const (
	neutral direction = iota
	higherBetter
	lowerBetter
)

// column is one figure of the comparison tables.
type column struct {
	head   string // short header, unit included
	better direction
	value  func(*metrics.Summary) float64
	format func(float64) string
}

// comparisonColumns are the columns of the terminal table and of the
// markdown comparison table, in order.
var comparisonColumns = []column{
	{"requests", neutral, func(s *metrics.Summary) float64 { return float64(s.Requests) }, textfmt.CountF},
	{"errors", lowerBetter, func(s *metrics.Summary) float64 { return float64(s.Failed()) }, textfmt.CountF},
	{"req/s", higherBetter, func(s *metrics.Summary) float64 { return s.Throughput.Requests }, textfmt.Num},
	{"out tok/s", higherBetter, func(s *metrics.Summary) float64 { return s.Throughput.OutputTokens }, textfmt.Num},
	{"TTFT p50 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.TTFT, s.TTFT.P50) }, textfmt.Num},
	{"TTFT p99 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.TTFT, s.TTFT.P99) }, textfmt.Num},
	{"TBT p50 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.TBT, s.TBT.P50) }, textfmt.Num},
	{"TBT p99 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.TBT, s.TBT.P99) }, textfmt.Num},
	{"TPOT p50 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.TPOT, s.TPOT.P50) }, textfmt.Num},
	{"E2E p99 ms", lowerBetter, func(s *metrics.Summary) float64 { return distVal(s.E2E, s.E2E.P99) }, textfmt.Num},
	{"hit server", higherBetter, func(s *metrics.Summary) float64 { return s.HitRate.Server }, textfmt.Pct},
	{"hit predicted", neutral, func(s *metrics.Summary) float64 { return s.HitRate.Predicted }, textfmt.Pct},
	{"SLA met", higherBetter, func(s *metrics.Summary) float64 { return s.SLA.Attainment }, textfmt.Pct},
	{"goodput req/s", higherBetter, func(s *metrics.Summary) float64 { return s.SLA.Goodput }, textfmt.Num},
	{"Jain", higherBetter, func(s *metrics.Summary) float64 { return s.Fairness.Jain }, textfmt.Frac},
}

// compactColumns are the columns of the default terminal table, those
// that decide: SLA attainment, goodput, TTFT p50 and p99, TPOT p50 and
// the server and predicted prefix-cache hit rates (the hit rates' heads
// shortened to "hit srv" and "hit pred" to fit 120 columns).
var compactColumns = pickColumns("SLA met", "goodput req/s", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms",
	"hit server:hit srv", "hit predicted:hit pred")

// pickColumns returns the comparison columns with the given heads, in
// that order; "head:short" takes the column head and shows it as short.
func pickColumns(heads ...string) []column {
	out := make([]column, 0, len(heads))
	for _, h := range heads {
		head, short, _ := strings.Cut(h, ":")
		for _, c := range comparisonColumns {
			if c.head == head {
				if short != "" {
					c.head = short
				}
				out = append(out, c)
			}
		}
	}
	return out
}

// distVal is v, or NaN when d is empty.
func distVal(d metrics.Dist, v float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	return v
}

// best returns, per column, whether each run holds the best value (as
// shown, after formatting). No run is marked in a neutral column, when
// fewer than two runs have a value, or when more than half of them share
// the best value (a mark on most rows tells the reader nothing).
func best(cols []column, runs []*metrics.Summary) [][]bool {
	marks := make([][]bool, len(runs))
	for i := range runs {
		marks[i] = make([]bool, len(cols))
	}
	for c, col := range cols {
		if col.better == neutral || len(runs) < 2 {
			continue
		}
		vals := make([]float64, len(runs))
		top, n := math.NaN(), 0
		for i, s := range runs {
			v := col.value(s)
			vals[i] = v
			if math.IsNaN(v) {
				continue
			}
			n++
			if math.IsNaN(top) || (col.better == higherBetter && v > top) || (col.better == lowerBetter && v < top) {
				top = v
			}
		}
		ties := 0
		for _, v := range vals {
			if col.format(v) == col.format(top) {
				ties++
			}
		}
		if n < 2 || 2*ties > n {
			continue
		}
		for i, v := range vals {
			marks[i][c] = col.format(v) == col.format(top)
		}
	}
	return marks
}
