package gateway

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// decisionRequest is a 512-token prompt of token ids whose first 384
// tokens it shares with every other request, the view a gateway routes.
func decisionRequest(i int) *traces.Request {
	ids := make([]int, 512)
	for k := range ids {
		ids[k] = k
		if k >= 384 {
			ids[k] = 1000 + i*512 + k
		}
	}
	return &traces.Request{ID: "r", Model: "m", TokenIDs: ids, InputTokens: len(ids), OutputTokens: 16}
}

// newDecisionRouter builds a router with its defaults, its KV index
// bound when it reads KV events (as the gateway binds it).
func newDecisionRouter(t testing.TB, name string, backends int) policies.Router {
	t.Helper()
	r, err := policies.NewRouter(name, nil, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if kr, ok := policies.As[policies.KVEventRouter](r); ok {
		if _, err := kr.BindKVEvents(backends); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestRoutingDecisionAllocs checks that the routing decision, the
// Router's pick and the predicted hit of the pick (what the Dispatcher
// asks per request), allocates nothing once warm, for every router.
func TestRoutingDecisionAllocs(t *testing.T) {
	st := policies.State{Now: time.Second}
	for i := range 4 {
		st.Backends = append(st.Backends, policies.Backend{Index: i, ID: backendName(i), InFlight: i % 2})
	}
	for _, name := range policies.Names("router") {
		t.Run(name, func(t *testing.T) {
			r := newDecisionRouter(t, name, len(st.Backends))
			hits := policies.HitModelFor(r)
			reqs := []*traces.Request{decisionRequest(0), decisionRequest(1), decisionRequest(2)}
			k := 0
			decide := func() {
				ch, err := r.Pick(reqs[k%len(reqs)], st)
				if err != nil {
					t.Fatal(err)
				}
				hits.Fill(reqs[k%len(reqs)], st, &ch)
				k++
			}
			for range 64 {
				decide()
			}
			if n := testing.AllocsPerRun(200, decide); n != 0 {
				t.Errorf("%s: %.1f allocations per routing decision, want 0", name, n)
			}
		})
	}
}

// TestDispatcherBookkeepingAllocs measures what the Dispatcher allocates
// per request around the decision (arrive, release, route, done) with
// fcfs: three copies of the fleet's state (Tracker.Snapshot: one for the
// Queue's release, one for the Router, and one more for the Queue's
// second release call, which finds the queue empty), the Queue's
// release list and the list of Dispatches returned. It fails when that
// grows, so docs/scale.md stays true.
func TestDispatcherBookkeepingAllocs(t *testing.T) {
	const want = 5
	r := newDecisionRouter(t, "prefix-cache", 4)
	q, err := policies.NewQueue("fcfs", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := replay.NewDispatcher(r, q, policies.Capacity{}, 0, []string{"a", "b", "c", "d"})
	req := decisionRequest(0)
	res := &results.Result{}
	var now time.Duration
	step := func() {
		now += time.Millisecond
		d.Arrive(now, req)
		ds, err := d.Pump(now)
		if err != nil || len(ds) != 1 {
			t.Fatalf("pump: %v, %d dispatches", err, len(ds))
		}
		res.Backend = ds[0].Backend
		d.Done(now, req, res)
	}
	for range 64 {
		step()
	}
	if n := testing.AllocsPerRun(200, step); n > want {
		t.Errorf("%.1f allocations per request in the Dispatcher, want at most %d (see docs/scale.md)", n, want)
	}
}
