package policies

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// qReqs builds n Requests r0..r(n-1) with in input and out output tokens,
// arriving 1 s apart.
func qReqs(n, in, out int) []*traces.Request {
	rs := make([]*traces.Request, n)
	for i := range rs {
		rs[i] = &traces.Request{ID: fmt.Sprintf("r%d", i), Arrival: time.Duration(i) * time.Second,
			InputTokens: in, OutputTokens: out}
	}
	return rs
}

// qIDs lists the released Requests' IDs and Backends as "id@backend".
func qIDs(rels []Release) []string {
	out := []string{}
	for _, r := range rels {
		out = append(out, fmt.Sprintf("%s@%d", r.Req.ID, r.Backend))
	}
	return out
}

// qState builds a State whose Backends have the given in-flight
// requests and tokens.
func qState(inflight []int, tokens []int) State {
	st := State{}
	for i, n := range inflight {
		b := Backend{Index: i, InFlight: n}
		if tokens != nil {
			b.InFlightTokens = tokens[i]
		}
		st.Backends = append(st.Backends, b)
	}
	return st
}

func TestFCFSRelease(t *testing.T) {
	tests := []struct {
		name     string
		queued   int
		inflight []int
		tokens   []int
		c        Capacity
		want     []string
	}{
		{"no capacity releases all", 3, []int{5, 9}, nil, Capacity{}, []string{"r0@-1", "r1@-1", "r2@-1"}},
		// room = (2−0) + (2−1) + (2−2) = 3 of 5 queued
		{"request slots summed over backends", 5, []int{0, 1, 2}, nil, Capacity{Requests: 2}, []string{"r0@-1", "r1@-1", "r2@-1"}},
		{"all backends full", 2, []int{2, 2}, nil, Capacity{Requests: 2}, []string{}},
		// token budget: one per call, and b1 has 1000−900 = 100 ≥ 10+20 free
		{"token budget one per call", 3, []int{1, 1}, []int{995, 900}, Capacity{Tokens: 1000}, []string{"r0@-1"}},
		// 995+30 > 1000 and 990+30 > 1000: the head fits nowhere
		{"token budget blocks the head", 3, []int{1, 1}, []int{995, 990}, Capacity{Tokens: 1000}, []string{}},
		// an idle backend always takes one request, whatever its size
		{"idle backend takes one", 1, []int{0}, []int{0}, Capacity{Tokens: 10}, []string{"r0@-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := NewQueue("fcfs", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range qReqs(tc.queued, 10, 20) {
				if err := q.Arrive(r.Arrival, r); err != nil {
					t.Fatal(err)
				}
			}
			got := qIDs(q.Release(0, qState(tc.inflight, tc.tokens), tc.c))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("released (-want +got):\n%s", d)
			}
			if q.Len() != tc.queued-len(got) {
				t.Errorf("Len = %d, want %d", q.Len(), tc.queued-len(got))
			}
		})
	}
}

func TestFIFOPushFrontAndCompaction(t *testing.T) {
	var q fifo
	rs := qReqs(3000, 1, 1)
	for _, r := range rs {
		q.push(r)
	}
	for range 2000 {
		q.pop()
	}
	q.pushFront([]*traces.Request{rs[1998], rs[1999]})
	var got []string
	for q.len() > 0 {
		got = append(got, q.pop().ID)
	}
	if len(got) != 1002 || got[0] != "r1998" || got[2] != "r2000" || got[1001] != "r2999" {
		t.Errorf("order after pushFront: first %v last %s (n %d)", got[:3], got[len(got)-1], len(got))
	}
	q.pushFront([]*traces.Request{rs[0]})
	if q.len() != 1 || q.peek() != rs[0] {
		t.Errorf("pushFront on empty queue: len %d", q.len())
	}
}
