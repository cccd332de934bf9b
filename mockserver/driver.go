package mockserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tracebench/tracebench/internal/pace"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// resyncAfter is how late a step may end before the driver re-anchors
// its schedule at the current time instead of catching up with a burst
// of back-to-back steps (a real GPU does not run faster after a hiccup).
const resyncAfter = 100 * time.Millisecond

// driver runs an engine in real time: one goroutine steps it, each step
// ending at an absolute wall deadline (origin + model time × scale), and
// posts the step's events to the requests' mailboxes at that deadline.
type driver struct {
	mu     sync.Mutex
	eng    *engine.Engine
	reqs   map[string]*inflight
	origin time.Time
	scale  float64
	now    time.Duration // model time the next step starts at
	wake   chan struct{}
	late   *lateness
	stall  func() time.Duration // injected stall after a step (wall)
	window time.Duration        // wait after waking from idle (wall)
	// afterStep, when set, runs under mu right after each engine step
	// (the KV event publisher's flush).
	afterStep func()
	log       *slog.Logger
	// onStep, when set, sees every step that ran work (metrics).
	onStep func(engine.Step)
}

func newDriver(eng *engine.Engine, scale float64, stall func() time.Duration, log *slog.Logger) *driver {
	return &driver{eng: eng, reqs: make(map[string]*inflight), origin: time.Now(), scale: scale,
		wake: make(chan struct{}, 1), late: newLateness(), stall: stall, log: log}
}

// gather waits the batch window after an idle engine got a request; it
// reports false when ctx ended.
func (d *driver) gather(ctx context.Context) bool {
	if d.window <= 0 {
		return true
	}
	t := time.NewTimer(d.window)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// modelNow maps wall time t to model time.
func (d *driver) modelNow(t time.Time) time.Duration {
	return time.Duration(float64(t.Sub(d.origin)) / d.scale)
}

// wallAt maps model time m to wall time.
func (d *driver) wallAt(m time.Duration) time.Time {
	return d.origin.Add(time.Duration(float64(m) * d.scale))
}

// add queues r in the engine and returns its mailbox.
func (d *driver) add(r *engine.Request) (*inflight, error) {
	f := newInflight()
	d.mu.Lock()
	err := d.eng.Add(max(d.now, d.modelNow(time.Now())), r)
	if err == nil {
		d.reqs[r.ID] = f
	}
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
	return f, nil
}

// abort drops request id (a client went away); it reports whether the
// engine still had it.
func (d *driver) abort(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.reqs, id)
	return d.eng.Abort(id)
}

// waiting returns the engine's queue length.
func (d *driver) waiting() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.eng.Stats().Waiting
}

// stats returns the engine's stats.
func (d *driver) stats() engine.Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.eng.Stats()
}

// run steps the engine until ctx ends. It starts idle: a request that
// reached the engine before this goroutine ran still waits the batch
// window, as it would have on a running driver.
func (d *driver) run(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	if !d.idle(ctx) {
		return
	}
	for {
		d.mu.Lock()
		st := d.eng.Step(d.now)
		if d.afterStep != nil {
			d.afterStep()
		}
		d.mu.Unlock()
		if st.Duration == 0 && len(st.Events) == 0 {
			if !d.idle(ctx) {
				return
			}
			continue
		}
		stall := d.stall()
		deadline := d.wallAt(st.End()).Add(stall)
		if !pace.Until(ctx, timer, deadline) {
			return
		}
		late := time.Since(deadline)
		d.late.record(late, d.log)
		d.mu.Lock()
		d.deliver(st)
		d.now = st.End() + time.Duration(float64(stall)/d.scale)
		if late > resyncAfter {
			d.now = max(d.now, d.modelNow(time.Now()))
		}
		d.mu.Unlock()
	}
}

// idle waits for a new request; it reports false when ctx ended.
func (d *driver) idle(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-d.wake:
	}
	if !d.gather(ctx) {
		return false
	}
	d.mu.Lock()
	d.now = max(d.now, d.modelNow(time.Now()))
	d.mu.Unlock()
	return true
}

// deliver posts a step's events to the live requests' mailboxes.
func (d *driver) deliver(st engine.Step) {
	if d.onStep != nil && st.Duration > 0 {
		d.onStep(st)
	}
	for _, ev := range st.Events {
		f := d.reqs[ev.ID]
		if f == nil {
			continue
		}
		f.post(ev)
		if ev.Finished {
			delete(d.reqs, ev.ID)
		}
	}
}
