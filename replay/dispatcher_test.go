package replay

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

func newTestDispatcher(t *testing.T, router string, c policies.Capacity, maxInflight, backends int) *Dispatcher {
	t.Helper()
	r, err := policies.NewRouter(router, nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	q, err := policies.NewQueue("fcfs", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	urls := make([]string, backends)
	return NewDispatcher(r, q, c, maxInflight, urls)
}

func reqs(n int) []*traces.Request {
	out := make([]*traces.Request, n)
	for i := range out {
		out[i] = &traces.Request{ID: string(rune('a' + i)), Arrival: time.Duration(i) * time.Millisecond,
			InputTokens: 10, OutputTokens: 5}
	}
	return out
}

func TestDispatcherPump(t *testing.T) {
	tests := []struct {
		name        string
		router      string
		capacity    policies.Capacity
		maxInflight int
		arrive      int
		want        []int // backend of each dispatch, in order
		held        int
	}{
		// round-robin over 3 backends, no limits: 0,1,2,0,1.
		{"open loop", "round-robin", policies.Capacity{}, 0, 5, []int{0, 1, 2, 0, 1}, 0},
		// 1 request per backend: 3 go out, 2 wait in the queue.
		{"capacity", "round-robin", policies.Capacity{Requests: 1}, 0, 5, []int{0, 1, 2}, 2},
		// global cap of 2: two go out, three wait behind the cap.
		{"max in-flight", "round-robin", policies.Capacity{}, 2, 5, []int{0, 1}, 3},
		// least-request fills the empty backends first: 3 distinct, then any.
		{"least-request spreads", "least-request", policies.Capacity{Requests: 1}, 0, 3, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDispatcher(t, tc.router, tc.capacity, tc.maxInflight, 3)
			var got []int
			for _, r := range reqs(tc.arrive) {
				if rej := d.Arrive(r.Arrival, r); rej != nil {
					t.Fatalf("rejected: %v", rej.Err)
				}
				ds, err := d.Pump(r.Arrival)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range ds {
					got = append(got, x.Backend)
				}
			}
			if tc.want == nil {
				seen := map[int]bool{}
				for _, b := range got {
					seen[b] = true
				}
				if len(seen) != tc.arrive {
					t.Fatalf("least-request used backends %v, want %d distinct", got, tc.arrive)
				}
			} else if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("backends (-want +got):\n%s", diff)
			}
			if d.Held() != tc.held {
				t.Fatalf("held = %d, want %d", d.Held(), tc.held)
			}
		})
	}
}

func TestDispatcherDoneReleasesHeld(t *testing.T) {
	d := newTestDispatcher(t, "round-robin", policies.Capacity{Requests: 1}, 0, 1)
	rs := reqs(2)
	var first []Dispatch
	for _, r := range rs {
		d.Arrive(0, r)
		ds, _ := d.Pump(0)
		first = append(first, ds...)
	}
	if len(first) != 1 || d.Held() != 1 {
		t.Fatalf("dispatched %d held %d, want 1 and 1", len(first), d.Held())
	}
	res := NewResult(first[0].Seq, rs[0], 0, 0)
	res.Done = 5 * time.Millisecond
	d.Done(res.Done, rs[0], res)
	ds, err := d.Pump(res.Done)
	if err != nil || len(ds) != 1 || ds[0].Req != rs[1] || ds[0].Released != 5*time.Millisecond {
		t.Fatalf("after done: %+v, %v; want the held request released at 5ms", ds, err)
	}
	if got := d.Tracker().Snapshot(0).Backends[0]; got.InFlight != 1 || got.Completed != 1 {
		t.Fatalf("tracker = %+v, want 1 in flight, 1 completed", got)
	}
}

func TestDispatcherAbandon(t *testing.T) {
	d := newTestDispatcher(t, "round-robin", policies.Capacity{Requests: 1}, 0, 1)
	for _, r := range reqs(3) {
		d.Arrive(r.Arrival, r)
		d.Pump(r.Arrival)
	}
	got := d.Abandon(10 * time.Millisecond)
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "c" {
		t.Fatalf("abandoned %+v, want the two held requests b and c in order", got)
	}
	for _, r := range got {
		if r.ErrClass != results.ErrCanceled || r.Backend != -1 || r.Done != 10*time.Millisecond {
			t.Fatalf("bad abandoned result %+v", r)
		}
	}
	if len(d.Abandon(0)) != 0 {
		t.Fatal("a request must be abandoned once")
	}
}

// TestDispatcherPredictsHits: a load-only Router's Dispatches carry the
// shared HitModel's prediction (0 for the first sending of a prompt, all
// of it for a repeat on the one Backend); a Router with its own view gets
// no shared model.
func TestDispatcherPredictsHits(t *testing.T) {
	if d := newTestDispatcher(t, "prefix-cache", policies.Capacity{}, 0, 1); d.hits != nil {
		t.Errorf("prefix-cache predicts its own hits but got the shared model")
	}
	d := newTestDispatcher(t, "round-robin", policies.Capacity{}, 0, 1)
	var got []int
	for i, id := range []string{"a", "b"} {
		r := &traces.Request{ID: id, Arrival: time.Duration(i), Prompt: "0123456789abcdef0123456789abcdef" +
			"0123456789abcdef0123456789abcdef", InputTokens: 16, OutputTokens: 1}
		if rej := d.Arrive(r.Arrival, r); rej != nil {
			t.Fatal(rej.Err)
		}
		disp, err := d.Pump(r.Arrival)
		if err != nil || len(disp) != 1 {
			t.Fatalf("pump: %v, %d dispatches", err, len(disp))
		}
		got = append(got, disp[0].PredictedHitTokens)
	}
	if got[0] != 0 || got[1] != 16 {
		t.Errorf("predicted hits %v, want [0 16]", got)
	}
}
