package gateway

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// routing owns the policy state: one replay.Dispatcher, the same the
// client-side replay routes with, behind one lock, and the requests
// waiting for its release.
type routing struct {
	mu       sync.Mutex
	d        *replay.Dispatcher
	now      func() time.Duration
	waiting  map[*traces.Request]*waiter
	urls     []string // Backend base URLs by Index
	maxQueue int
	m        *metrics
	events   func([]results.Event)
	// failed is the routing error last logged (logged once each).
	failed string
}

// release is a Dispatch handed to its waiting request, with the URLs it
// goes to.
type release struct {
	replay.Dispatch
	url, prefillURL string
	err             error
}

// waiter is a request held by the Queue.
type waiter struct {
	ch chan release
	// gone is set when its client left (or the gateway stopped) before
	// the release; a later release is then undone at once.
	gone bool
}

// errQueueFull is the rejection of a request over Options.MaxQueue.
var errQueueFull = errors.New("queue full")

func newRouting(o Options, now func() time.Duration, m *metrics, events func([]results.Event)) *routing {
	d := replay.NewDispatcher(o.Router, o.Queue, o.Capacity, o.MaxInflight, o.Backends)
	if o.PD != nil {
		d.SetPD(o.PD)
	}
	return &routing{d: d, now: now, waiting: map[*traces.Request]*waiter{}, urls: append([]string(nil), o.Backends...),
		maxQueue: o.MaxQueue, m: m, events: events}
}

// admit hands req (Arrival set) to the Queue. It returns the waiter to
// receive its release, or the Result of its rejection: by the Queue, or
// errQueueFull's when MaxQueue requests are held already.
func (r *routing) admit(req *traces.Request) (*waiter, *results.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.maxQueue > 0 && r.d.Held() >= r.maxQueue {
		return nil, rejected(req, now, fmt.Errorf("%w: %d requests held, the gateway's queue limit", errQueueFull, r.d.Held()))
	}
	if rej := r.d.Arrive(now, req); rej != nil {
		return nil, rej
	}
	w := &waiter{ch: make(chan release, 1)}
	r.waiting[req] = w
	r.pump(now)
	return w, nil
}

// rejected is the Result of a request the gateway turned away at now.
func rejected(req *traces.Request, now time.Duration, err error) *results.Result {
	return &results.Result{ID: req.ID, User: req.User, Session: req.Session, Backend: -1, Intended: req.Arrival,
		Released: now, Sent: now, Done: now, InputTokens: req.InputTokens, OutputTokens: req.OutputTokens,
		ErrClass: results.ErrRejected, Err: err.Error()}
}

// pump releases what the Queue lets go to the waiting requests; a
// release whose client is gone is undone at once. Called with mu held.
func (r *routing) pump(now time.Duration) {
	for {
		ds, err := r.d.Pump(now)
		if err != nil {
			r.failAll(err)
		}
		undone := false
		for _, d := range ds {
			w := r.waiting[d.Req]
			delete(r.waiting, d.Req)
			if w == nil || w.gone {
				r.undo(now, d)
				undone = true
				continue
			}
			r.m.dispatched(d.Backend, d.Prefill)
			w.ch <- r.releaseOf(d)
		}
		r.m.queueDepth(r.d.Held())
		if ev := r.d.TakeEvents(now); len(ev) > 0 && r.events != nil {
			r.events(ev)
		}
		if !undone || err != nil {
			return
		}
	}
}

// releaseOf adds d's URLs.
func (r *routing) releaseOf(d replay.Dispatch) release {
	rel := release{Dispatch: d, url: r.urls[d.Backend]}
	if d.Prefill != nil {
		rel.prefillURL = r.urls[d.Prefill.Backend]
	}
	return rel
}

// undo ends a release nobody waits for, as a canceled Request, so the
// Backend's in-flight count and the policies stay right.
func (r *routing) undo(now time.Duration, d replay.Dispatch) {
	res := &results.Result{Backend: d.Backend, Intended: d.Req.Arrival, Released: now, Sent: now, Done: now,
		ErrClass: results.ErrCanceled, Err: "the client left while the request was held"}
	if d.Prefill != nil {
		res.PD = &results.PrefillPhase{Backend: d.Prefill.Backend, ErrClass: results.ErrCanceled}
	}
	r.d.Done(now, d.Req, res)
}

// failAll answers every waiting request with a routing error (a Router
// that cannot pick): the gateway cannot tell which request it failed.
func (r *routing) failAll(err error) {
	if msg := err.Error(); msg != r.failed {
		slog.Error("routing failed; the waiting requests are answered 503", "err", msg)
		r.failed = msg
	}
	for _, w := range r.waiting {
		w.ch <- release{err: err}
		w.gone = true
	}
	clear(r.waiting)
}

// leave marks w's request gone when it is still held (its client left
// or the gateway stopped); false when it was released meanwhile.
func (r *routing) leave(req *traces.Request, w *waiter) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, held := r.waiting[req]; !held {
		return false
	}
	w.gone = true
	return true
}

// done records the end of a released request and releases what that
// frees.
func (r *routing) done(req *traces.Request, res *results.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.d.Done(now, req, res)
	r.m.finished(res)
	r.pump(now)
}

// prefillDone records the end of req's prefill phase (ph: Intended,
// Sent and PD set).
func (r *routing) prefillDone(req *traces.Request, ph *results.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.d.PrefillDone(now, req, ph)
	r.m.prefillFinished(ph.PD.Backend)
	r.pump(now)
}

// tokensFunc returns the callback reporting streamed output tokens of req to
// the policies that count them; nil when none does.
func (r *routing) tokensFunc(req *traces.Request) func(int) {
	if !r.d.WantsTokens() {
		return nil
	}
	return func(n int) {
		r.mu.Lock()
		r.d.Tokens(r.now(), req, n)
		r.mu.Unlock()
	}
}
