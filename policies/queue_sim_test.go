package policies

import (
	"container/heap"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// queueSim drives a Queue in virtual time the way the replay does: Release
// after every arrival, every dispatch batch and every completion; Requests
// released with Backend −1 go to the Backend with room that has the fewest
// in flight (lowest index on ties). A serve model says when each
// dispatched Request finishes; tokens stream back in chunks.
type queueSim struct {
	t        *testing.T
	q        Queue
	c        Capacity
	backends []Backend
	serve    simServe
	chunk    int
	now      time.Duration
	events   simHeap
	seq      int
	rejected int
	finished []simFinished
}

// simServe returns, for Requests dispatched together to backend b at now
// (running are already in flight there), each one's finish time and
// decode TBT.
type simServe func(now time.Duration, b int, running int, reqs []*traces.Request) []simDone

// simDone is one Request's service outcome.
type simDone struct {
	at  time.Duration
	tbt time.Duration
}

// simFinished records one completed Request.
type simFinished struct {
	req           *traces.Request
	backend       int
	released, end time.Duration
}

// simEvent is a completion (n < 0) or n streamed tokens of req.
type simEvent struct {
	at      time.Duration
	seq     int
	req     *traces.Request
	backend int
	n       int
	tbt     time.Duration
	start   time.Duration
}

type simHeap []simEvent

func (h simHeap) Len() int { return len(h) }
func (h simHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}
func (h simHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *simHeap) Push(x any)   { *h = append(*h, x.(simEvent)) }
func (h *simHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// newQueueSim builds a simulation of n Backends.
func newQueueSim(t *testing.T, q Queue, n int, c Capacity, serve simServe) *queueSim {
	s := &queueSim{t: t, q: q, c: c, serve: serve, chunk: 16}
	for i := range n {
		s.backends = append(s.backends, Backend{Index: i, ID: "b" + string(rune('0'+i%10))})
	}
	return s
}

// run feeds arrivals (sorted by Arrival) and processes events until both
// are exhausted or the clock passes until.
func (s *queueSim) run(arrivals []*traces.Request, until time.Duration) {
	i := 0
	for i < len(arrivals) || s.events.Len() > 0 {
		if i < len(arrivals) && (s.events.Len() == 0 || arrivals[i].Arrival <= s.events[0].at) {
			s.now = arrivals[i].Arrival
			if s.now > until {
				return
			}
			if err := s.q.Arrive(s.now, arrivals[i]); err != nil {
				s.rejected++
			}
			i++
		} else {
			ev := heap.Pop(&s.events).(simEvent)
			s.now = ev.at
			if s.now > until {
				return
			}
			s.handle(ev)
		}
		s.pump()
	}
}

// handle applies a token or completion event.
func (s *queueSim) handle(ev simEvent) {
	if ev.n >= 0 {
		if tf, ok := s.q.(TokenFeedback); ok {
			tf.Tokens(s.now, ev.req, ev.n)
		}
		return
	}
	b := &s.backends[ev.backend]
	b.InFlight--
	b.InFlightTokens -= queueTokens(ev.req)
	s.finished = append(s.finished, simFinished{req: ev.req, backend: ev.backend, released: ev.start, end: s.now})
	if fb, ok := s.q.(Feedback); ok {
		fb.Done(s.now, ev.req, Outcome{Backend: ev.backend, PromptTokens: ev.req.InputTokens,
			OutputTokens: ev.req.OutputTokens, TBT: ev.tbt})
	}
}

// pump releases and dispatches until the Queue lets nothing go.
func (s *queueSim) pump() {
	for range 1_000_000 {
		rels := s.q.Release(s.now, State{Now: s.now, Backends: append([]Backend(nil), s.backends...)}, s.c)
		if len(rels) == 0 {
			return
		}
		groups := map[int][]*traces.Request{}
		var order []int
		for _, r := range rels {
			b := r.Backend
			if b < 0 {
				b = s.pick(r.Req)
			}
			if _, ok := groups[b]; !ok {
				order = append(order, b)
			}
			groups[b] = append(groups[b], r.Req)
			s.backends[b].InFlight++
			s.backends[b].InFlightTokens += queueTokens(r.Req)
		}
		for _, b := range order {
			s.start(b, groups[b])
		}
	}
	s.t.Fatal("Release never stopped releasing")
}

// pick is the Router: fewest in flight among Backends with room.
func (s *queueSim) pick(r *traces.Request) int {
	best := -1
	for i, b := range s.backends {
		if !s.c.Room(b, queueTokens(r)) {
			continue
		}
		if best < 0 || b.InFlight < s.backends[best].InFlight {
			best = i
		}
	}
	if best < 0 {
		s.t.Fatalf("queue %s released request %s with no backend room", s.q.Name(), r.ID)
	}
	return best
}

// start serves reqs on backend b and schedules their token and
// completion events.
func (s *queueSim) start(b int, reqs []*traces.Request) {
	running := s.backends[b].InFlight - len(reqs)
	for i, d := range s.serve(s.now, b, running, reqs) {
		r := reqs[i]
		for sent := s.chunk; sent < r.OutputTokens; sent += s.chunk {
			at := s.now + time.Duration(float64(d.at-s.now)*float64(sent)/float64(r.OutputTokens))
			s.push(simEvent{at: at, req: r, backend: b, n: s.chunk})
		}
		last := r.OutputTokens - (r.OutputTokens-1)/s.chunk*s.chunk
		if r.OutputTokens == 0 {
			last = 0
		}
		s.push(simEvent{at: d.at, req: r, backend: b, n: last})
		s.push(simEvent{at: d.at, req: r, backend: b, n: -1, tbt: d.tbt, start: s.now})
	}
}

func (s *queueSim) push(ev simEvent) {
	ev.seq = s.seq
	s.seq++
	heap.Push(&s.events, ev)
}
