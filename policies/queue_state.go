package policies

import "time"

// StateEvent is one sample of a Queue's internal state, written to the
// results file as a results.Event so reports can plot it over time.
type StateEvent struct {
	// Source names the emitter: "multi-bin", "vtc", "lcf" or "rpm".
	Source string
	// Values are the named figures; each Queue's doc lists its keys
	// (multi-bin: "bin<i>_b_target", "bin<i>_b_mem", "bin<i>_b_sla",
	// "bin<i>_lo", "bin<i>_hi", ...; vtc and lcf: "counter:<user>").
	Values map[string]float64
}

// StateReporter is implemented by Queues whose internal state is worth
// plotting. The replay calls StateEvents from its scheduler goroutine after
// every Release call that returned Requests, after every Feedback.Done and
// on a periodic tick (once per second of Run time), and writes each
// returned StateEvent as results.Event{At: now, Source: e.Source, Values:
// e.Values}. StateEvents returns nil when nothing changed since the last
// returned sample, or when the Queue's event_interval has not yet passed
// since it; the returned maps are fresh and the caller may keep them.
type StateReporter interface {
	StateEvents(now time.Duration) []StateEvent
}

// stateThrottle decides when a StateReporter emits: only after a change,
// and at most once per interval (0: after every change).
type stateThrottle struct {
	interval time.Duration
	last     time.Duration
	emitted  bool
	dirty    bool
}

// touch marks the state as changed.
func (t *stateThrottle) touch() { t.dirty = true }

// due reports whether a sample should be emitted at now, and if so
// records the emission.
func (t *stateThrottle) due(now time.Duration) bool {
	if !t.dirty {
		return false
	}
	if t.emitted && now-t.last < t.interval {
		return false
	}
	t.dirty, t.emitted, t.last = false, true, now
	return true
}
