package mockserver

import (
	"context"
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

// Late-step warnings. A step that ends more than warnLate after its
// deadline is logged at WARN the first time it happens on a server (or
// on any replica of a fleet, which share one lateWarner), then at most
// once per warnEvery, with the number of late steps not logged since.
// The summary at shutdown is a WARN when the p99 exceeds warnLate or the
// schedule was re-anchored, INFO otherwise.
const (
	warnLate  = 10 * time.Millisecond
	warnEvery = time.Minute
)

// lateWarner rate-limits late-step warnings; one is shared by the
// replicas of a fleet.
type lateWarner struct {
	mu      sync.Mutex
	last    time.Time // time of the last warning (zero: none yet)
	skipped int64     // late steps since the last warning, not logged
}

// note records a late step at now; it reports whether to log it and how
// many late steps went unlogged since the previous warning.
func (w *lateWarner) note(now time.Time) (bool, int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.last.IsZero() && now.Sub(w.last) < warnEvery {
		w.skipped++
		return false, 0
	}
	n := w.skipped
	w.last, w.skipped = now, 0
	return true, n
}

// lateness records step lateness in microseconds (1 µs to 1 h, 3
// significant digits).
type lateness struct {
	mu      sync.Mutex
	h       *hdrhistogram.Histogram
	resyncs int64
	warn    *lateWarner
}

func newLateness() *lateness {
	return &lateness{h: hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3), warn: &lateWarner{}}
}

// record adds one step's lateness (negative counts as 0) and logs a
// warning for a step over warnLate late, rate-limited by l.warn.
func (l *lateness) record(d time.Duration, log *slog.Logger) {
	us := max(int64(d/time.Microsecond), 0)
	l.mu.Lock()
	_ = l.h.RecordValue(min(us, l.h.HighestTrackableValue()))
	if d > resyncAfter {
		l.resyncs++
	}
	l.mu.Unlock()
	if d <= warnLate {
		return
	}
	if ok, skipped := l.warn.note(time.Now()); ok {
		s := l.summary()
		log.Warn("mock step ran late",
			"late", d, "threshold", warnLate, "late_steps_not_logged", skipped, "p99", s.P99, "max", s.Max,
			"steps", s.Steps, "resyncs", s.Resyncs, "next_warning_after", warnEvery)
	}
}

// logSummary logs the step lateness of a server or fleet at shutdown:
// WARN when the p99 is over warnLate or a step was over resyncAfter
// late, INFO otherwise; nothing when no step ran.
func logSummary(log *slog.Logger, l Lateness, replicas int) {
	if l.Steps == 0 {
		return
	}
	level := slog.LevelInfo
	if l.P99 > warnLate || l.Resyncs > 0 {
		level = slog.LevelWarn
	}
	log.Log(context.Background(), level, "mock step lateness", "replicas", replicas, "steps", l.Steps, "p50", l.P50, "p99", l.P99,
		"max", l.Max, "resyncs", l.Resyncs)
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
