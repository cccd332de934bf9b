package policies

import (
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterQueue(Spec{Name: "fcfs",
		Doc:    "release in arrival order as soon as a backend has room (the Router alone decides)",
		Needs:  []string{"in-flight"},
		Source: "baseline (first come, first served)"},
		func(_ Params, _ *rand.Rand) (Queue, error) { return &fcfs{}, nil })
}

// fcfs releases Requests in arrival order while some Backend has room
// under the Capacity; without a Capacity it releases every Request on
// arrival. A head Request that fits nowhere (token budget) blocks the ones
// behind it, as first come, first served requires.
type fcfs struct{ q fifo }

func (f *fcfs) Name() string { return "fcfs" }

func (f *fcfs) Len() int { return f.q.len() }

func (f *fcfs) Arrive(_ time.Duration, req *traces.Request) error {
	f.q.push(req)
	return nil
}

// Release lets the head go while the room budget allows (see roomBudget);
// the Router picks each Request's Backend.
func (f *fcfs) Release(_ time.Duration, st State, c Capacity) []Release {
	return f.q.releaseHead(st, c)
}

// fifo is a first-in, first-out queue of Requests that reuses its slice.
type fifo struct {
	items []*traces.Request
	head  int
}

func (q *fifo) len() int { return len(q.items) - q.head }

func (q *fifo) push(r *traces.Request) { q.items = append(q.items, r) }

// peek returns the head; the queue must not be empty.
func (q *fifo) peek() *traces.Request { return q.items[q.head] }

// pop removes and returns the head; the queue must not be empty.
func (q *fifo) pop() *traces.Request {
	r := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return r
}

// pushFront puts rs back at the head, in order (rs[0] becomes the head).
func (q *fifo) pushFront(rs []*traces.Request) {
	if len(rs) == 0 {
		return
	}
	if q.head >= len(rs) {
		q.head -= len(rs)
		copy(q.items[q.head:], rs)
		return
	}
	rest := q.items[q.head:]
	q.items = append(append(make([]*traces.Request, 0, len(rs)+len(rest)), rs...), rest...)
	q.head = 0
}

// drain removes and returns every queued Request in order.
func (q *fifo) drain() []*traces.Request {
	out := append([]*traces.Request(nil), q.items[q.head:]...)
	clear(q.items)
	q.items, q.head = q.items[:0], 0
	return out
}

// releaseHead pops Requests from the head while the room budget of st
// under c allows, for the Router to place (Backend -1).
func (q *fifo) releaseHead(st State, c Capacity) []Release {
	var out []Release
	rb := newRoomBudget(st, c)
	for q.len() > 0 && rb.fits(q.peek()) {
		out = append(out, Release{Req: q.pop(), Backend: -1})
		rb.take()
	}
	return out
}
