package reports

import (
	"io"
	"math"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// csvField is one column of the summary CSV.
type csvField struct {
	name  string
	value func(*metrics.Summary) string
}

// num formats a float for CSV: up to 6 significant digits, empty for NaN.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func numI(v int64) string { return strconv.FormatInt(v, 10) }

func ms(d time.Duration) string { return num(float64(d) / float64(time.Millisecond)) }

// distFields are the columns of one latency distribution: <p>_mean_ms,
// _p50_ms, _p90_ms, _p95_ms, _p99_ms, _p999_ms, _max_ms.
func distFields(prefix string, get func(*metrics.Summary) metrics.Dist) []csvField {
	f := func(suffix string, pick func(metrics.Dist) float64) csvField {
		return csvField{prefix + "_" + suffix, func(s *metrics.Summary) string {
			d := get(s)
			if d.Count == 0 {
				return ""
			}
			return num(pick(d))
		}}
	}
	return []csvField{
		f("mean_ms", func(d metrics.Dist) float64 { return d.Mean }),
		f("p50_ms", func(d metrics.Dist) float64 { return d.P50 }),
		f("p90_ms", func(d metrics.Dist) float64 { return d.P90 }),
		f("p95_ms", func(d metrics.Dist) float64 { return d.P95 }),
		f("p99_ms", func(d metrics.Dist) float64 { return d.P99 }),
		f("p999_ms", func(d metrics.Dist) float64 { return d.P999 }),
		f("max_ms", func(d metrics.Dist) float64 { return d.Max }),
	}
}

// errorClasses are the error classes given their own summary column, in
// column order.
var errorClasses = []string{results.ErrConnect, results.ErrTimeout, results.ErrHTTP4xx, results.ErrUnknownModel, results.ErrHTTP5xx,
	results.ErrStreamBroken, results.ErrStreamError, results.ErrBadPayload, results.ErrRejected, results.ErrCanceled}

// SummaryColumns returns the summary CSV's column names in order; the
// names are stable (documented in docs/reports.md).
func SummaryColumns() []string {
	var out []string
	for _, f := range summaryFields() {
		out = append(out, f.name)
	}
	return out
}

// WriteCSV writes the summary CSV: a header row (SummaryColumns) and one
// row per Run. Empty cells are figures that could not be measured.
func WriteCSV(w io.Writer, runs []*metrics.Summary) error {
	fields := summaryFields()
	row := make([]string, len(fields))
	return writeCSV(w, "summary csv", SummaryColumns(), func(write func([]string)) {
		for _, s := range runs {
			for i, f := range fields {
				row[i] = f.value(s)
			}
			write(row)
		}
	})
}
