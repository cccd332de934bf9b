package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactQuantile is the nearest-rank q-quantile (q in [0, 1]) of sorted.
func exactQuantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// lognormalSample draws n durations around median with spread sigma,
// truncated to whole microseconds as the histograms record them.
func lognormalSample(n int, median time.Duration, sigma float64, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]time.Duration, n)
	for i := range out {
		d := time.Duration(float64(median) * math.Exp(sigma*rng.NormFloat64()))
		out[i] = d.Truncate(time.Microsecond)
	}
	return out
}

func TestHDRPercentilesAgainstExact(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		median time.Duration
		sigma  float64
	}{
		{"TTFT-like 100k", 100_000, 150 * time.Millisecond, 1.0},
		{"TBT-like 50k", 50_000, 20 * time.Millisecond, 0.3},
		{"wide 10k", 10_000, 5 * time.Millisecond, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs := lognormalSample(tt.n, tt.median, tt.sigma, uint64(tt.n))
			h := newHist()
			for _, x := range xs {
				recordDur(h, x)
			}
			slices.Sort(xs)
			d := distOf(h)
			for _, c := range []struct {
				q   float64
				got float64
			}{{0.5, d.P50}, {0.9, d.P90}, {0.95, d.P95}, {0.99, d.P99}, {0.999, d.P999}, {1, d.Max}} {
				want := float64(exactQuantile(xs, c.q)) / float64(time.Millisecond)
				// three significant digits: within 0.1 % (+1 µs rounding)
				if math.Abs(c.got-want) > want*1e-3+1e-3 {
					t.Errorf("q%v = %v ms, exact %v ms", c.q, c.got, want)
				}
			}
		})
	}
}

func TestSketchQuantilesAgainstExact(t *testing.T) {
	xs := lognormalSample(20_000, 300*time.Millisecond, 1.2, 3)
	var s sketch
	for _, x := range xs {
		s.add(x)
	}
	slices.Sort(xs)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
		want := float64(exactQuantile(xs, q)) / float64(time.Millisecond)
		if got := s.quantile(q); math.Abs(got-want) > want*0.01 {
			t.Errorf("q%v = %v ms, exact %v ms: more than 1 %% off", q, got, want)
		}
	}
}

func TestRecordClampsOutOfRange(t *testing.T) {
	h := newHist()
	under := recordDur(h, -time.Second)
	over := recordDur(h, histCeiling+time.Hour)
	if h.TotalCount() != 2 || h.Max() < histMax*999/1000 {
		t.Errorf("count %d max %d: want both values kept, the large one at the top", h.TotalCount(), h.Max())
	}
	if under != 0 || over != 1 {
		t.Errorf("reported %d below and %d above the range, want 0 and 1", under, over)
	}
	if n := recordUS(h, histMax+1, 5); n != 5 {
		t.Errorf("recordUS reported %d of 5 values above the range", n)
	}
}

// TestLatenciesPastAnHourKept: a replay of a long trace on an overloaded
// fleet queues requests for hours; their percentiles must be their own,
// not one ceiling value shared by every percentile.
func TestLatenciesPastAnHourKept(t *testing.T) {
	h := newHist()
	xs := []time.Duration{90 * time.Minute, 2 * time.Hour, 3 * time.Hour, 5 * time.Hour, 30 * time.Hour}
	for _, x := range xs {
		if over := recordDur(h, x); over != 0 {
			t.Fatalf("%s reported above the range", x)
		}
	}
	d := distOf(h)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"p50", d.P50, float64(3 * time.Hour / time.Millisecond)},
		{"max", d.Max, float64(30 * time.Hour / time.Millisecond)},
		{"mean", d.Mean, float64((90*time.Minute + 40*time.Hour) / 5 / time.Millisecond)},
	} {
		if math.Abs(c.got-c.want) > c.want*0.001 {
			t.Errorf("%s = %.0f ms, want %.0f ms within 0.1 %%", c.name, c.got, c.want)
		}
	}
}

func TestCDFIsMonotone(t *testing.T) {
	h := newHist()
	for _, x := range lognormalSample(5000, 100*time.Millisecond, 1, 9) {
		recordDur(h, x)
	}
	pts := cdfOf(h, 100)
	for i := 1; i < len(pts); i++ {
		if pts[i].Fraction < pts[i-1].Fraction || pts[i].Value < pts[i-1].Value {
			t.Fatalf("point %d %+v after %+v: not monotone", i, pts[i], pts[i-1])
		}
	}
	if pts[0].Fraction != 0 || pts[len(pts)-1].Fraction != 1 {
		t.Errorf("CDF spans %v..%v, want 0..1", pts[0].Fraction, pts[len(pts)-1].Fraction)
	}
}
