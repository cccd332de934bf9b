package metrics

import (
	"cmp"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: values are microseconds from 1 µs to 7 days, three
// significant digits (a 0.1 % error on every percentile). A replay of a
// week-long trace (Azure 2023) on an overloaded fleet can keep a request
// queued for hours, so the ceiling is the longest trace, not a plausible
// latency. A histogram takes about 240 KiB.
const (
	histMin     = 1
	histMax     = int64(7 * 24 * time.Hour / time.Microsecond)
	histSigFigs = 3
)

// histCeiling is histMax as a duration, for messages.
const histCeiling = time.Duration(histMax) * time.Microsecond

// newHist returns an empty microsecond histogram.
func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMin, histMax, histSigFigs)
}

// recordDur records d at microsecond resolution, clamped to the
// histogram's range (a negative duration counts as 0). It returns 1 when
// d was above the range and was recorded at the ceiling, else 0.
func recordDur(h *hdrhistogram.Histogram, d time.Duration) int64 {
	return recordUS(h, int64(d/time.Microsecond), 1)
}

// recordUS records n values of us microseconds, clamped to the range. It
// returns how many of them were above the range (n or 0).
func recordUS(h *hdrhistogram.Histogram, us, n int64) int64 {
	if n <= 0 {
		return 0
	}
	var over int64
	if us < 0 {
		us = 0
	}
	if us > histMax {
		us, over = histMax, n
	}
	// The value is inside the range, so RecordValues cannot fail.
	_ = h.RecordValues(us, n)
	return over
}

// Dist summarises a distribution of durations in milliseconds.
type Dist struct {
	// Count is the number of values.
	Count int64 `json:"count"`
	// Mean, P50, P90, P95, P99, P999 and Max are in milliseconds.
	Mean float64 `json:"mean_ms"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
}

// distOf summarises a microsecond histogram.
func distOf(h *hdrhistogram.Histogram) Dist {
	n := h.TotalCount()
	if n == 0 {
		return Dist{}
	}
	q := func(p float64) float64 { return float64(h.ValueAtQuantile(p)) / 1e3 }
	return Dist{
		Count: n, Mean: h.Mean() / 1e3,
		P50: q(50), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9),
		Max: float64(h.Max()) / 1e3,
	}
}

// CDFPoint is one point of a cumulative distribution: the fraction of
// values at or below Value.
type CDFPoint struct {
	// Value is in milliseconds.
	Value float64 `json:"value_ms"`
	// Fraction is in [0, 1].
	Fraction float64 `json:"fraction"`
}

// cdfOf returns about points points of the histogram's CDF, at evenly
// spaced quantiles plus the tail (99, 99.9, 100 %).
func cdfOf(h *hdrhistogram.Histogram, points int) []CDFPoint {
	if h.TotalCount() == 0 || points < 2 {
		return nil
	}
	qs := make([]float64, 0, points+3)
	for i := 0; i <= points; i++ {
		qs = append(qs, 100*float64(i)/float64(points))
	}
	qs = append(qs, 99, 99.9)
	var out []CDFPoint
	for _, q := range qs {
		out = append(out, CDFPoint{Value: float64(h.ValueAtQuantile(q)) / 1e3, Fraction: q / 100})
	}
	sortCDF(out)
	return out
}

func sortCDF(p []CDFPoint) {
	slices.SortFunc(p, func(a, b CDFPoint) int { return cmp.Compare(a.Fraction, b.Fraction) })
}
