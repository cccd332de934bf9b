package mockserver

import (
	"sync"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// inflight is the mailbox between the driver, which posts a request's
// engine events at step ends, and the handler streaming them. Posting
// never blocks, so a slow client cannot stall the engine.
type inflight struct {
	mu     sync.Mutex
	evs    []engine.Event
	signal chan struct{}
}

func newInflight() *inflight { return &inflight{signal: make(chan struct{}, 1)} }

// post appends ev and wakes the handler.
func (f *inflight) post(ev engine.Event) {
	f.mu.Lock()
	f.evs = append(f.evs, ev)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// take moves the pending events into buf (reset first) and returns it.
func (f *inflight) take(buf []engine.Event) []engine.Event {
	f.mu.Lock()
	buf = append(buf[:0], f.evs...)
	f.evs = f.evs[:0]
	f.mu.Unlock()
	return buf
}
