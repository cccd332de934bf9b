package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// kvWorkload is n token-exact requests sharing four 64-token prefixes.
func kvWorkload(n int) []traces.Request {
	var out []traces.Request
	for i := range n {
		ids := make([]int, 96)
		for j := range ids {
			ids[j] = 500 + j + (i%4)*1000
			if j >= 64 {
				ids[j] = 9000 + i*100 + j
			}
		}
		out = append(out, traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * 20 * time.Millisecond,
			TokenIDs: ids, InputTokens: len(ids), OutputTokens: 4})
	}
	return out
}

// runPrecise replays kvWorkload(n) through precise-prefix against a
// two-replica mock fleet publishing KV events; eps overrides the fleet's
// endpoints when not nil.
func runPrecise(t *testing.T, n int, eps func(*mockserver.Fleet) []replay.KVEndpoint) (results.Stop, []*results.Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: 2, KVEvents: true,
		Options: mockserver.Options{TimeScale: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	r, err := policies.NewRouter("precise-prefix", nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := policies.NewQueue("fcfs", nil, nil)
	var got []*results.Result
	stop, err := replay.Run(ctx, replay.Options{Common: replay.Common{Source: traces.NewSliceSource(kvWorkload(n)),
		Router: r, Queue: q, OnResult: func(r *results.Result) { got = append(got, r) }},
		Backends: f.URLs(),
		Client:   client.New(client.Options{Stream: true, TokenExact: true}), KVEvents: eps(f)})
	if err != nil {
		t.Fatal(err)
	}
	return stop, got
}

func fleetEndpoints(f *mockserver.Fleet) []replay.KVEndpoint {
	pubs, reps := f.KVEventEndpoints()
	out := make([]replay.KVEndpoint, len(pubs))
	for i := range pubs {
		out[i] = replay.KVEndpoint{Pub: pubs[i], Replay: reps[i]}
	}
	return out
}

// TestRunPrecisePrefixLive: over loopback ZeroMQ the router learns the
// replicas' caches, routes repeated prefixes to their holders and
// predicts the server's hits.
func TestRunPrecisePrefixLive(t *testing.T) {
	stop, got := runPrecise(t, 40, fleetEndpoints)
	var pred, cached int
	for _, r := range got {
		if !r.OK() {
			t.Fatalf("request %d failed: %s", r.Seq, r.Err)
		}
		pred += r.PredictedHitTokens
		cached += r.CachedTokens
	}
	if cached == 0 || pred == 0 {
		t.Fatalf("predicted %d, cached %d: want prefix hits", pred, cached)
	}
	if d := pred - cached; d*10 > cached || -d*10 > cached {
		t.Errorf("predicted %d cached tokens, the servers served %d (want within 10 %%)", pred, cached)
	}
	for b := range 2 {
		if stop.Extra[replay.KVExtraKey(b, "events")] == 0 || stop.Extra[replay.KVExtraKey(b, "unreachable")] != 0 {
			t.Errorf("backend %d: extras events %v unreachable %v", b,
				stop.Extra[replay.KVExtraKey(b, "events")], stop.Extra[replay.KVExtraKey(b, "unreachable")])
		}
	}
}

// TestRunPrecisePrefixUnreachable: an endpoint nobody listens on makes
// the router decide by load and the stop record say so.
func TestRunPrecisePrefixUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "tcp://" + ln.Addr().String()
	_ = ln.Close()
	stop, got := runPrecise(t, 8, func(f *mockserver.Fleet) []replay.KVEndpoint {
		eps := fleetEndpoints(f)
		eps[1] = replay.KVEndpoint{Pub: dead}
		return eps
	})
	if stop.Extra[replay.KVExtraKey(1, "unreachable")] != 1 {
		t.Errorf("backend 1 not reported unreachable: %v", stop.Extra)
	}
	for _, r := range got {
		if r.PredictedHitTokens != 0 && r.Backend == 1 {
			t.Errorf("request %d: predicted hit on the unreachable backend", r.Seq)
		}
	}
	if len(got) != 8 {
		t.Errorf("%d results, want 8", len(got))
	}
}
