package traces

import (
	"container/heap"
	"time"
)

// merger orders the Requests of sessions that overlap in time: a session's
// turns are pushed when the session is created, and a Request is released
// once no session yet to be created can arrive before it. Memory is the
// turns of the sessions still in progress, not the whole trace. Ties in
// Arrival keep push order, so output is deterministic.
type merger struct {
	h   reqHeap
	seq uint64
}

// push adds a Request.
func (m *merger) push(r Request) {
	heap.Push(&m.h, seqReq{r: r, seq: m.seq})
	m.seq++
}

// popUpTo removes and returns the earliest Request if it arrives at or
// before t.
func (m *merger) popUpTo(t time.Duration) (Request, bool) {
	if len(m.h) == 0 || m.h[0].r.Arrival > t {
		return Request{}, false
	}
	return heap.Pop(&m.h).(seqReq).r, true
}

// pop removes and returns the earliest Request.
func (m *merger) pop() (Request, bool) {
	if len(m.h) == 0 {
		return Request{}, false
	}
	return heap.Pop(&m.h).(seqReq).r, true
}

type seqReq struct {
	r   Request
	seq uint64
}

// reqHeap is a min-heap of Requests by (Arrival, seq) for container/heap.
type reqHeap []seqReq

func (h reqHeap) Len() int { return len(h) }
func (h reqHeap) Less(i, j int) bool {
	if h[i].r.Arrival != h[j].r.Arrival {
		return h[i].r.Arrival < h[j].r.Arrival
	}
	return h[i].seq < h[j].seq
}
func (h reqHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *reqHeap) Push(x any)   { *h = append(*h, x.(seqReq)) }
func (h *reqHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = seqReq{}
	*h = old[:len(old)-1]
	return x
}
