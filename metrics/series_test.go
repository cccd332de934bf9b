package metrics

import (
	"math"
	"testing"
	"time"
)

func sum(pts []Point, width float64) float64 {
	var t float64
	for _, p := range pts {
		t += p.Value * width
	}
	return t
}

func TestSeriesHalvingKeepsTotals(t *testing.T) {
	s := newSeries(8, false)
	// 100 values of 1 over 0..99 s: the width must grow from 250 ms until
	// 100 s fits in 8 buckets (16 s).
	for i := 0; i < 100; i++ {
		s.add(time.Duration(i)*time.Second, 1)
	}
	if s.width != 16*time.Second {
		t.Errorf("width = %v, want 16s", s.width)
	}
	if len(s.sum) > 8 {
		t.Errorf("%d buckets, want at most 8", len(s.sum))
	}
	if got := sum(s.rates(), s.width.Seconds()); math.Abs(got-100) > 1e-9 {
		t.Errorf("total = %v, want 100", got)
	}
}

func TestSeriesSpreadIsATimeIntegral(t *testing.T) {
	s := newSeries(100, false) // 250 ms buckets
	// One request in flight from 0.1 s to 0.9 s: 0.8 s spread as
	// 0.15, 0.25, 0.25, 0.15 over the first four buckets.
	s.spread(100*time.Millisecond, 900*time.Millisecond, 0.8)
	want := []float64{0.15, 0.25, 0.25, 0.15}
	for i, w := range want {
		if math.Abs(s.sum[i]-w) > 1e-12 {
			t.Errorf("bucket %d = %v, want %v", i, s.sum[i], w)
		}
	}
	// As a rate: 0.6 requests in flight on average in bucket 0.
	if got := s.rates()[0].Value; math.Abs(got-0.6) > 1e-12 {
		t.Errorf("mean in flight in bucket 0 = %v, want 0.6", got)
	}
}

func TestSeriesMeansAndCumulative(t *testing.T) {
	s := newSeries(10, true)
	s.add(0, 4)
	s.add(100*time.Millisecond, 8)
	s.add(600*time.Millisecond, 3)
	m := s.means()
	if len(m) != 2 || m[0].Value != 6 || m[1].Value != 3 || m[1].At != 0.5 {
		t.Errorf("means = %+v, want 6 at 0 s and 3 at 0.5 s", m)
	}
	c := s.cumulative()
	if c[len(c)-1].Value != 15 {
		t.Errorf("cumulative ends at %v, want 15", c[len(c)-1].Value)
	}
}

func TestSpreadWindows(t *testing.T) {
	var w []float64
	// 90 over 30 s..120 s in 60 s windows: 30 s in window 0, 60 s in 1.
	spreadWindows(&w, 30*time.Second, 120*time.Second, time.Minute, 90)
	if len(w) != 2 || math.Abs(w[0]-30) > 1e-9 || math.Abs(w[1]-60) > 1e-9 {
		t.Errorf("windows = %v, want [30 60]", w)
	}
}

// TestRunSeriesHandComputed checks the plotted run-wide series of the
// hand-computed run: output tokens stream from the first token to done,
// and every series spans the whole Run.
func TestRunSeriesHandComputed(t *testing.T) {
	s := summarizeHand(DefaultOptions())
	tp := s.Series.Throughput
	// The last completion is at 10 s: 41 buckets of 250 ms (the last
	// one holding it) in every series.
	for name, pts := range map[string][]Point{"throughput": tp, "completions": s.Series.Completions,
		"in flight": s.Series.InFlight, "waiting": s.Series.Waiting} {
		if len(pts) != 41 {
			t.Errorf("%s has %d buckets, want 41 (up to 10 s in 250 ms buckets)", name, len(pts))
		}
	}
	if len(tp) < 3 {
		t.Fatal("no throughput series")
	}
	// Request 0: its first token at 201 ms, the other 10 spread over
	// 201..701 ms: 49/500, 250/500 and 201/500 of them in buckets 0..2.
	for i, tokens := range []float64{1 + 0.98, 5, 4.02} {
		if want := tokens / 0.25; math.Abs(tp[i].Value-want) > 1e-9 {
			t.Errorf("bucket %d: %v tok/s, want %v", i, tp[i].Value, want)
		}
	}
	// Every successful output token is counted once: 11 + 21 + 11 + 1.
	if got := sum(tp, 0.25); math.Abs(got-44) > 1e-9 {
		t.Errorf("Σ tokens = %v, want 44", got)
	}
	// Request 4 has one token, at its first token (9.301 s).
	if got := tp[37].Value * 0.25; math.Abs(got-1) > 1e-9 {
		t.Errorf("bucket 37 holds %v tokens, want 1", got)
	}
}
