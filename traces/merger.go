package traces

import (
	"cmp"
	"time"

	"github.com/tracebench/tracebench/internal/minheap"
)

// merger orders the Requests of sessions that overlap in time: a session's
// turns are pushed when the session is created, and a Request is released
// once no session yet to be created can arrive before it. Memory is the
// turns of the sessions still in progress, not the whole trace. Ties in
// Arrival keep push order, so output is deterministic.
type merger struct {
	h   minheap.Heap[seqReq]
	seq uint64
}

// push adds a Request.
func (m *merger) push(r Request) {
	m.h.Push(seqReq{r: r, seq: m.seq})
	m.seq++
}

// popUpTo removes and returns the earliest Request if it arrives at or
// before t.
func (m *merger) popUpTo(t time.Duration) (Request, bool) {
	if next, ok := m.peek(); !ok || next.Arrival > t {
		return Request{}, false
	}
	return m.pop()
}

// peek returns the earliest Request without removing it.
func (m *merger) peek() (Request, bool) {
	sr, ok := m.h.Peek()
	return sr.r, ok
}

// len returns the number of Requests held.
func (m *merger) len() int { return m.h.Len() }

// pop removes and returns the earliest Request.
func (m *merger) pop() (Request, bool) {
	sr, ok := m.h.Pop()
	return sr.r, ok
}

// seqReq is a pushed Request and its push order.
type seqReq struct {
	r   Request
	seq uint64
}

// Before orders Requests by Arrival, then push order.
func (a seqReq) Before(b seqReq) bool {
	return cmp.Or(cmp.Compare(a.r.Arrival, b.r.Arrival), cmp.Compare(a.seq, b.seq)) < 0
}
