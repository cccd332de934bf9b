package sim_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/sim"
	"github.com/tracebench/tracebench/traces"
)

// A Go program comparing two routers on the same workload in virtual
// time, without the command line: 400 requests of the mixed workload
// (shared system prompts, multi-turn sessions) at 8 req/s on 4 simulated
// engines, each router with a fresh fleet, summarised as `tracebench
// report` would.
func Example_comparePolicies() {
	for _, name := range []string{"round-robin", "prefix-cache"} {
		src, err := traces.NewWorkload("mixed", traces.Params{{Name: "requests", Value: traces.ParamInt(400)}}, 1)
		if err != nil {
			log.Fatal(err)
		}
		paced := traces.WithArrivals(src, traces.ArrivalOptions{Rate: 8, Process: "poisson", Seed: 1})
		router, err := policies.NewRouter(name, nil, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			log.Fatal(err)
		}
		queue, err := policies.NewQueue("fcfs", nil, nil)
		if err != nil {
			log.Fatal(err)
		}
		h := results.Header{Version: results.Version, Policy: name, Router: name, Queue: queue.Name(), Seed: 1,
			Mode: "sim", Backends: sim.BackendNames(4)}
		acc := metrics.NewAccumulator(h, metrics.DefaultOptions())
		engines := make([]engine.Config, 4)
		for i := range engines {
			engines[i] = engine.DefaultConfig()
			engines[i].Seed = int64(1 + i)
		}
		stop, err := sim.Run(context.Background(), sim.Options{Engines: engines,
			Common: replay.Common{Source: paced, Router: router, Queue: queue, OnResult: acc.Add, OnEvent: acc.AddEvent}})
		if err != nil {
			log.Fatal(err)
		}
		sum := acc.Finish(&stop)
		fmt.Printf("%-12s %d requests, server hit rate %.0f %%, TTFT p50 %.0f ms\n",
			name, sum.OK, 100*sum.HitRate.Server, sum.TTFT.P50)
	}
	// Output:
	// round-robin  400 requests, server hit rate 58 %, TTFT p50 23 ms
	// prefix-cache 400 requests, server hit rate 87 %, TTFT p50 16 ms
}
