package bench_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/reports"
)

// A Go program comparing two routers on the same workload in virtual
// time, as `tracebench replay --sim 4 --rate 8 -p requests=400 --policy
// NAME` would: 400 requests of the mixed workload (shared system prompts,
// multi-turn sessions) at 8 req/s on 4 simulated engines, each router
// with a fresh fleet and its own results file.
func Example_comparePolicies() {
	dir, err := os.MkdirTemp("", "bench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	engines := engine.DefaultConfig()
	for _, name := range []string{"round-robin", "prefix-cache"} {
		spec := bench.Spec{Workload: bench.DefaultWorkload(), Policy: bench.DefaultPolicy(),
			Report: reports.DefaultOptions(), Router: name, Sim: 4, Engines: engines, Fleet: &engines,
			Results: bench.ResultsPath(dir, name)}
		spec.Workload.WorkloadArgs = []string{"requests=400"}
		spec.Workload.Rate = 8
		sum, err := bench.Run(context.Background(), spec)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-12s %d requests, server hit rate %.0f %%, TTFT p50 %.0f ms, results %s\n",
			name, sum.OK, 100*sum.HitRate.Server, sum.TTFT.P50, filepath.Base(spec.Results))
	}
	// Output:
	// round-robin  400 requests, server hit rate 53 %, TTFT p50 27 ms, results results-round-robin.jsonl
	// prefix-cache 400 requests, server hit rate 72 %, TTFT p50 23 ms, results results-prefix-cache.jsonl
}
