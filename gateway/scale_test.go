package gateway_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/gateway"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// scaleWorkload is the trace every scenario replays: 8 system prompts of
// 512 tokens shared by 24 requests each, 64-token questions, at 48 req/s.
var scaleWorkload = traces.Params{{Name: "groups", Value: traces.ParamInt(8)}, {Name: "prompts_per_group", Value: traces.ParamInt(24)},
	{Name: "system_len", Value: traces.ParamInt(512)}, {Name: "question_len", Value: traces.ParamInt(64)},
	{Name: "output_len", Value: traces.ParamInt(8)}, {Name: "rate", Value: traces.ParamFloat(48)}}

// scaleRouter is the prefix-aware router every scenario routes with.
const scaleRouter = "prefix-cache"

// hits is one scenario's predicted and server hit rates.
type hits struct{ predicted, server float64 }

func (h hits) String() string {
	return fmt.Sprintf("predicted %.1f %%, server %.1f %%", 100*h.predicted, 100*h.server)
}

// TestOneGatewayManyShards sends one trace through one gateway as 4
// shard replays running at once and as one unsharded replay: the
// gateway's router sees every request, so its predicted hit rate agrees
// with the servers' within 1 point both ways. The same 4 shards routing
// client-side, each with its own router, fall behind: each router knows
// only its shard's prompts. Every scenario starts on a cold fleet.
func TestOneGatewayManyShards(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time replays of 192 requests, three times")
	}
	dir := t.TempDir()
	sharded := throughGateway(t, dir, "sharded", 4)
	single := throughGateway(t, dir, "single", 1)
	client := clientSide(t, dir, 4)
	t.Logf("one gateway, 4 shards:       %v", sharded)
	t.Logf("one gateway, one replay:     %v", single)
	t.Logf("4 shards routing client-side: %v", client)
	for name, h := range map[string]hits{"4 shards through the gateway": sharded, "one replay through the gateway": single} {
		if math.IsNaN(h.predicted) || math.IsNaN(h.server) || math.Abs(h.predicted-h.server) > 0.01 {
			t.Errorf("%s: %v; want them within 1 point", name, h)
		}
	}
	if gap, gw := math.Abs(client.predicted-client.server), math.Abs(sharded.predicted-sharded.server); gap <= gw || client.server >= sharded.server {
		t.Errorf("client-side shards (%v) do not fall behind the gateway's (%v)", client, sharded)
	}
}

// coldFleet starts 4 fresh mock servers, 10× faster than real time.
func coldFleet(t *testing.T) []string {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Seed = 1
	fl, err := bench.StartMockFleet(context.Background(), bench.MockFleet{Replicas: 4, Host: "127.0.0.1",
		Server: mockserver.Options{Engine: cfg, Tokenizer: "whitespace", TimeScale: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fl.Close() })
	return fl.URLs()
}

// shardSpec is the replay of shard i of n ("" for n = 1) to backends
// with router, writing out.
func shardSpec(i, n int, router string, backends []string, out string) bench.Spec {
	w := bench.DefaultWorkload()
	w.Workload, w.WorkloadArgs = "shared-prefix", scaleWorkload
	if n > 1 {
		w.Shard = fmt.Sprintf("%d/%d", i, n)
	}
	p := bench.DefaultPolicy()
	p.Router = router
	return bench.Spec{Workload: w, Policy: p, Client: bench.DefaultClient(), Backends: backends, Mode: "target",
		Results: out, Report: metrics.DefaultOptions(), Quiet: true}
}

// runShards runs n shard replays at once and returns their results files.
func runShards(t *testing.T, dir, name string, n int, router string, backends []string) []string {
	t.Helper()
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		paths[i] = filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", name, i))
		wg.Go(func() { _, errs[i] = bench.Run(context.Background(), shardSpec(i, n, router, backends, paths[i])) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s shard %d: %v", name, i, err)
		}
	}
	return paths
}

// throughGateway replays the trace as n shards (each routing to the one
// gateway) through a gateway in front of a cold fleet and returns the
// hit rates of the gateway's results file.
func throughGateway(t *testing.T, dir, name string, n int) hits {
	t.Helper()
	rs := shardSpec(0, 1, scaleRouter, coldFleet(t), "")
	parts, err := bench.BuildGateway(context.Background(), rs, "gateway")
	if err != nil {
		t.Fatal(err)
	}
	defer parts.Client.Close()
	out := filepath.Join(dir, name+"-gateway.jsonl")
	w, err := results.Create(out, parts.Header)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(context.Background(), gateway.Options{Backends: rs.Backends, Client: parts.Client,
		Router: parts.Router, Queue: parts.Queue, Results: w, Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan results.Stop, 1)
	go func() {
		st, _ := g.Serve(ctx, ln)
		served <- st
	}()
	runShards(t, dir, name, n, "round-robin", []string{"http://" + ln.Addr().String()})
	stop()
	if err := w.Close(<-served); err != nil {
		t.Fatal(err)
	}
	return hitRates(t, out)
}

// clientSide replays the trace as n shards, each routing to the cold
// fleet's servers itself, and returns the hit rates of the merged
// results.
func clientSide(t *testing.T, dir string, n int) hits {
	t.Helper()
	paths := runShards(t, dir, "client", n, scaleRouter, coldFleet(t))
	out := filepath.Join(dir, "client-merged.jsonl")
	if _, err := results.Merge(out, paths); err != nil {
		t.Fatal(err)
	}
	return hitRates(t, out)
}

// hitRates reads a results file's predicted and server hit rates.
func hitRates(t *testing.T, path string) hits {
	t.Helper()
	sum, err := metrics.Summarize(path, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Errorf("%s: errors %v", path, sum.Errors)
	}
	return hits{predicted: sum.HitRate.Predicted, server: sum.HitRate.Server}
}
