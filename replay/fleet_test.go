package replay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// fleetPolicies is every registered router (behind fcfs) and every
// queue (behind round-robin).
func fleetPolicies() [][2]string {
	var out [][2]string
	for _, r := range policies.Names("router") {
		out = append(out, [2]string{r, "fcfs"})
	}
	for _, q := range policies.Names("queue") {
		out = append(out, [2]string{"round-robin", q})
	}
	return out
}

// fleetReq is request n of a few users sharing prefixes.
func fleetReq(n int, at time.Duration) *traces.Request {
	u := n % 4
	return &traces.Request{ID: fmt.Sprintf("r%d", n), Arrival: at, User: fmt.Sprintf("u%d", u),
		Session: fmt.Sprintf("s%d", u), Prompt: fmt.Sprintf("user %d asks question %d", u, n),
		BlockIDs: []uint64{uint64(100 + u), uint64(1000 + n)}, BlockSize: 16, InputTokens: 32, OutputTokens: 8}
}

// fleetDriver runs a Dispatcher by hand: arrivals, pumps and completions.
type fleetDriver struct {
	t        *testing.T
	d        *Dispatcher
	now      time.Duration
	n        int
	inflight map[*traces.Request]int
}

// step lets k requests arrive, pumps, and returns the picked Backends.
func (f *fleetDriver) step(k int) []int {
	f.t.Helper()
	var got []int
	for range k {
		f.now += time.Millisecond
		r := fleetReq(f.n, f.now)
		f.n++
		if rej := f.d.Arrive(f.now, r); rej != nil {
			continue
		}
		ds, err := f.d.Pump(f.now)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, d := range ds {
			got = append(got, d.Backend)
			f.inflight[d.Req] = d.Backend
		}
	}
	return got
}

// finish completes every in-flight request (departed Backends too).
func (f *fleetDriver) finish() []int {
	f.t.Helper()
	var got []int
	for len(f.inflight) > 0 {
		req, b := anyInflight(f.inflight)
		f.now += time.Millisecond
		res := NewResult(0, req, b, f.now)
		res.Sent, res.FirstToken, res.Done = f.now-time.Millisecond, f.now-time.Millisecond/2, f.now
		res.PromptTokens, res.CompletionTokens = req.InputTokens, req.OutputTokens
		delete(f.inflight, req)
		f.d.Done(f.now, req, res)
		ds, err := f.d.Pump(f.now)
		if err != nil {
			f.t.Fatal(err)
		}
		for _, d := range ds {
			got = append(got, d.Backend)
			f.inflight[d.Req] = d.Backend
		}
	}
	return got
}

// anyInflight returns the in-flight request of the lowest ID.
func anyInflight(m map[*traces.Request]int) (*traces.Request, int) {
	var best *traces.Request
	for r := range m {
		if best == nil || r.Arrival < best.Arrival {
			best = r
		}
	}
	return best, m[best]
}

// bindKV gives a KV-event router an index of n Backends, each
// subscribed (as the replay does before the first pick).
func bindKV(t *testing.T, r policies.Router, n int) {
	kr, ok := r.(policies.KVEventRouter)
	if !ok {
		return
	}
	idx, err := kr.BindKVEvents(n)
	if err != nil {
		t.Fatal(err)
	}
	for b := range n {
		idx.Note(b, func(s *kvevents.Stats) { s.Subscribed = true })
	}
}

// TestFleetJoinLeave checks every router and queue with Backends that
// leave and join mid-run: a departed Backend gets no new picks (its
// in-flight requests finish), a joining one is picked, and a Backend
// that comes back gets its old Index.
func TestFleetJoinLeave(t *testing.T) {
	for _, p := range fleetPolicies() {
		t.Run(p[0]+"/"+p[1], func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			r, err := policies.NewRouter(p[0], nil, rng)
			if err != nil {
				t.Fatal(err)
			}
			q, err := policies.NewQueue(p[1], nil, rng)
			if err != nil {
				t.Fatal(err)
			}
			bindKV(t, r, 3)
			// One request per Backend at a time, so a full fleet offers
			// only the Backends with room.
			d := NewDispatcher(r, q, policies.Capacity{Requests: 1}, 0, []string{"http://b0", "http://b1", "http://b2"})
			f := &fleetDriver{t: t, d: d, inflight: map[*traces.Request]int{}}
			f.step(2)
			if !d.Leave(1) || d.Leave(1) {
				t.Fatal("Leave(1): want true once, then false")
			}
			got := append(f.step(6), f.finish()...)
			got = append(got, f.step(6)...)
			got = append(got, f.finish()...)
			if slices.Contains(got, 1) {
				t.Fatalf("departed backend 1 picked: %v", got)
			}
			if i, ok := d.Join("http://b3"); i != 3 || !ok {
				t.Fatalf("Join(b3) = %d, %v; want 3, true", i, ok)
			}
			got = f.step(3) // b0, b2, b3 have room for one each
			got = append(got, f.finish()...)
			if !slices.Contains(got, 3) || slices.Contains(got, 1) {
				t.Fatalf("after b3 joined, picks %v: want b3 picked and never b1", got)
			}
			for _, i := range []int{0, 2, 3} {
				d.Leave(i)
			}
			if got := f.step(2); len(got) != 0 {
				t.Fatalf("no backend live, yet dispatched to %v", got)
			}
			if i, ok := d.Join("http://b1"); i != 1 || !ok {
				t.Fatalf("Join(b1) again = %d, %v; want its old index 1, true", i, ok)
			}
			got = append(f.step(1), f.finish()...)
			got = append(got, f.finish()...)
			if len(got) == 0 || slices.ContainsFunc(got, func(b int) bool { return b != 1 }) {
				t.Fatalf("only b1 live, picks %v", got)
			}
			if d.Held() != 0 {
				t.Fatalf("%d requests still held with b1 live", d.Held())
			}
		})
	}
}

// TestRunFleetMoves replays over loopback while a fake resolver moves
// the fleet from servers A, B to A, C: C joins and gets requests, B
// leaves and gets none after it left, and both changes are events in
// the results file.
func TestRunFleetMoves(t *testing.T) {
	a, b, c := tokenServer(t, 3, 200, nil, nil), tokenServer(t, 3, 200, nil, nil), tokenServer(t, 3, 200, nil, nil)
	o, path := runOptions(t, 200, a.URL, b.URL) // arrivals over 40 ms
	// Stretched to 200 ms, 40 resolver periods: the fleet changes well
	// before the last arrival even when -race and other test packages delay
	// the resolver's ticks (over 40 ms, C once joined after every arrival).
	o.Source = traces.WithArrivals(o.Source, traces.ArrivalOptions{TimeScale: 5})
	var calls atomic.Int64
	o.Discover = &Discovery{Every: 5 * time.Millisecond, Resolve: func(context.Context) ([]string, error) {
		if calls.Add(1) == 1 {
			return nil, errors.New("no such host") // kept as it was
		}
		return []string{c.URL, a.URL}, nil
	}}
	stop, err := Run(context.Background(), o)
	if err != nil || stop.Reason != "done" {
		t.Fatalf("stop %+v err %v", stop, err)
	}
	o.Results.Close(stop)
	rd := mustOpenResults(t, path)
	left := time.Duration(-1)
	byBackend := map[int]int{}
	var joined []string
	var rs []*results.Result
	for {
		r, ev, err := rd.Next()
		if err != nil {
			break
		}
		if ev != nil && strings.HasPrefix(ev.Source, FleetEventPrefix) {
			url := strings.TrimPrefix(ev.Source, FleetEventPrefix)
			switch {
			case ev.Values[FleetJoined] == 1 && url == c.URL && ev.Values[FleetBackend] == 2:
				joined = append(joined, url)
			case ev.Values[FleetLeft] == 1 && url == b.URL && ev.Values[FleetBackend] == 1:
				left = ev.At
			default:
				t.Fatalf("unexpected fleet event %+v", ev)
			}
		}
		if r != nil {
			rs = append(rs, r)
			byBackend[r.Backend]++
		}
	}
	if len(joined) != 1 || left < 0 {
		t.Fatalf("fleet events: joined %v, left at %v; want C joined once and B left", joined, left)
	}
	for _, r := range rs {
		if !r.OK() {
			t.Fatalf("failed result %+v", r)
		}
		if r.Backend == 1 && r.Released >= left {
			t.Fatalf("request %s sent to B at %v, after it left at %v", r.ID, r.Released, left)
		}
	}
	if len(rs) != 200 || byBackend[2] == 0 {
		t.Fatalf("%d results, by backend %v; want 200 with some on C (b2)", len(rs), byBackend)
	}
}
