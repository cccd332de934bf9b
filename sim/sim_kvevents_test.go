package sim

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// simulatePrecise runs simWorkload through precise-prefix on two default
// engines with the given event delay and returns the stop record and the
// summed predicted and server-cached prompt tokens.
func simulatePrecise(t *testing.T, delay time.Duration) (results.Stop, int, int) {
	t.Helper()
	r, err := policies.NewRouter("precise-prefix", nil, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := policies.NewQueue("fcfs", nil, nil)
	cfgs := []engine.Config{engine.DefaultConfig(), engine.DefaultConfig()}
	var pred, cached int
	stop, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(simWorkload()),
		Router: r, Queue: q, OnResult: func(r *results.Result) {
			pred += r.PredictedHitTokens
			cached += r.CachedTokens
		}},
		Engines: cfgs, KVEventDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	return stop, pred, cached
}

// TestSimPrecisePrefixPredictsServerHits: with events handed over at
// once, the router's prediction is the engine's hit for every request
// the engine admits before the cache changes; over the workload the two
// sums agree within 2 %.
func TestSimPrecisePrefixPredictsServerHits(t *testing.T) {
	stop, pred, cached := simulatePrecise(t, 0)
	if cached == 0 {
		t.Fatal("no server hits: the workload shares prefixes")
	}
	if d := pred - cached; d*50 > cached || -d*50 > cached {
		t.Errorf("predicted %d cached tokens, the servers served %d", pred, cached)
	}
	for b := range 2 {
		if stop.Extra[replay.KVExtraKey(b, "subscribed")] != 1 || stop.Extra[replay.KVExtraKey(b, "events")] == 0 {
			t.Errorf("backend %d: stop extras %v, want subscribed with events", b, stop.Extra)
		}
	}
}

// TestSimPrecisePrefixEventLag: a lag of a whole second hides the
// blocks of recent requests, so the router predicts fewer hits.
func TestSimPrecisePrefixEventLag(t *testing.T) {
	_, pred0, _ := simulatePrecise(t, 0)
	_, pred1, _ := simulatePrecise(t, time.Second)
	if pred1 >= pred0 {
		t.Errorf("predicted %d tokens with 1 s lag, %d without: want fewer", pred1, pred0)
	}
}
