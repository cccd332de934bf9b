package bench_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/traces"
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
	for _, name := range []string{"round-robin", "prefix-cache"} {
		spec := bench.Spec{Workload: bench.DefaultWorkload(), Policy: bench.DefaultPolicy(),
			Report: metrics.DefaultOptions(), Sim: 4, Fleet: new(engine.DefaultConfig()),
			Results: bench.ResultsPath(dir, name)}
		spec.Policy.Router = name
		spec.Workload.WorkloadArgs = traces.Params{{Name: "requests", Value: traces.ParamInt(400)}}
		spec.Workload.Rate = 8
		sum, err := bench.Run(context.Background(), spec)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-12s %d requests, server hit rate %.0f %%, TTFT p50 %.0f ms, results %s\n",
			name, sum.OK, 100*sum.HitRate.Server, sum.TTFT.P50, filepath.Base(spec.Results))
	}
	// Output:
	// round-robin  400 requests, server hit rate 58 %, TTFT p50 23 ms, results results-round-robin.jsonl
	// prefix-cache 400 requests, server hit rate 87 %, TTFT p50 16 ms, results results-prefix-cache.jsonl
}

// A Go program comparing two routers in real time on in-process mock
// servers, as `tracebench bench --policies round-robin,prefix-cache
// --mock 2 --rate 40 -p requests=60` would: Compare runs both side by
// side, each on a fresh 2-server fleet over loopback HTTP, checks that
// the machine kept their timings honest (running a distorted one again),
// and writes the results files and report.md.
func Example_compareOnMockFleet() {
	dir, err := os.MkdirTemp("", "bench-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	base := bench.Spec{Workload: bench.DefaultWorkload(), Policy: bench.DefaultPolicy(),
		Client: bench.DefaultClient(), Report: metrics.DefaultOptions()}
	base.Workload.WorkloadArgs = traces.Params{{Name: "requests", Value: traces.ParamInt(60)}}
	base.Workload.Rate = 40
	fleet := bench.DefaultMockFleet()
	fleet.Replicas = 2
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, never reached
	defer cancel()
	res, err := bench.Compare(ctx, bench.CompareSpec{Base: base,
		Routers: []string{"round-robin", "prefix-cache"}, Out: dir, Setup: fleet.Setup(base.Workload.Seed), ErrOut: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range res.Runs {
		fmt.Printf("%-12s %d requests on %d mock servers\n", s.Header.Policy, s.OK, len(s.Header.Backends))
	}
	rr, pc := res.Runs[0].HitRate.Server, res.Runs[1].HitRate.Server
	fmt.Println("prefix-cache serves more prompt tokens from cache:", pc > rr)
	fmt.Println("report:", filepath.Base(res.Report))
	// Output:
	// round-robin  60 requests on 2 mock servers
	// prefix-cache 60 requests on 2 mock servers
	// prefix-cache serves more prompt tokens from cache: true
	// report: report.md
}
