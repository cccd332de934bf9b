package mockserver

import (
	"log/slog"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Lateness summarises how late the real-time driver ended its steps
// (wall time after each step's deadline), the measure of how far the
// mock, rather than its latency model, shaped what clients saw.
type Lateness struct {
	// Steps is the number of steps measured.
	Steps int64
	// P50, P99 and Max are quantiles of the lateness.
	P50, P99, Max time.Duration
	// Mean is the mean lateness.
	Mean time.Duration
	// Resyncs counts steps that ended more than 100 ms late, after which
	// the driver re-anchored its schedule (model time was lost, so
	// client-side timings are longer than the latency model says).
	Resyncs int64
}

// Late-step warnings: a step later than warnLate is logged, at most once
// per warnEvery.
const (
	warnLate  = 10 * time.Millisecond
	warnEvery = 10 * time.Second
)

// lateness records step lateness in microseconds (1 µs to 1 h, 3
// significant digits).
type lateness struct {
	mu       sync.Mutex
	h        *hdrhistogram.Histogram
	resyncs  int64
	lastWarn time.Time
}

func newLateness() *lateness {
	return &lateness{h: hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)}
}

// record adds one step's lateness (negative counts as 0) and logs a
// warning for a very late step, rate-limited.
func (l *lateness) record(d time.Duration, log *slog.Logger) {
	us := max(int64(d/time.Microsecond), 0)
	l.mu.Lock()
	_ = l.h.RecordValue(min(us, l.h.HighestTrackableValue()))
	if d > resyncAfter {
		l.resyncs++
	}
	warn := d > warnLate && time.Since(l.lastWarn) > warnEvery
	if warn {
		l.lastWarn = time.Now()
	}
	var s Lateness
	if warn {
		s = l.summaryLocked()
	}
	l.mu.Unlock()
	if warn {
		log.Warn("mock step ran late", "late", d, "p50", s.P50, "p99", s.P99, "max", s.Max, "steps", s.Steps,
			"resyncs", s.Resyncs)
	}
}

// summary returns the quantiles so far.
func (l *lateness) summary() Lateness {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.summaryLocked()
}

func (l *lateness) summaryLocked() Lateness {
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return Lateness{Steps: l.h.TotalCount(), P50: us(l.h.ValueAtQuantile(50)), P99: us(l.h.ValueAtQuantile(99)),
		Max: us(l.h.Max()), Mean: time.Duration(l.h.Mean() * float64(time.Microsecond)), Resyncs: l.resyncs}
}

// mergeInto adds l's counts to dst.
func (l *lateness) mergeInto(dst *lateness) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dst.h.Merge(l.h)
	dst.resyncs += l.resyncs
}

// quantiles returns count, sum (seconds), the given quantiles and the
// maximum (seconds), and the resync count, for the metrics.
func (l *lateness) quantiles(qs []float64) (uint64, float64, map[float64]float64, float64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[float64]float64, len(qs))
	for _, q := range qs {
		out[q] = float64(l.h.ValueAtQuantile(q*100)) / 1e6
	}
	n := l.h.TotalCount()
	return uint64(n), l.h.Mean() * float64(n) / 1e6, out, float64(l.h.Max()) / 1e6, l.resyncs
}
