package sim_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/sim"
	"github.com/tracebench/tracebench/traces"
)

// mooncakeTrace is the Mooncake conversation trace (12,031 requests, one
// hour) in the shared trace directory, relative to this package.
const mooncakeTrace = "../../shared/traces/mooncake/conversation_trace.jsonl"

// BenchmarkSimulateMooncake runs the whole Mooncake conversation trace on
// 8 simulated long-context engines, once per router (prefix-cache and
// round-robin, the sub-benchmarks), writing the results file and the
// report accumulators as `tracebench replay --sim 8` does, and reports
// the wall seconds per run (s/op), simulated requests per wall second
// (sim-req/s), simulated prompt + completion tokens per wall second
// (sim-tok/s), the process's CPU seconds per run (cpu-s/op: user and
// system, which other work on the machine inflates less than the wall
// time), and the process's peak resident memory (peak-rss-MB,
// VmHWM, over the whole process so far), peak heap obtained from the OS
// (peak-heap-MB, HeapSys) and peak live heap (peak-live-MB, sampled every
// 500 Results as of the last collection).
func BenchmarkSimulateMooncake(b *testing.B) {
	if _, err := os.Stat(mooncakeTrace); err != nil {
		b.Skipf("Mooncake trace not available (%v); it lives in ../shared/traces", err)
	}
	for _, router := range []string{"prefix-cache", "round-robin"} {
		b.Run(router, func(b *testing.B) { benchMooncake(b, router) })
	}
}

// benchMooncake is one router's BenchmarkSimulateMooncake.
func benchMooncake(b *testing.B, router string) {
	cfg, err := profile.BuiltinConfig("long-context")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var peakHeap, peakLive uint64
	var tokens int64
	live := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}} // as of the last collection
	seen := 0
	tick := func() {
		if seen++; seen%500 == 0 {
			rtmetrics.Read(live)
			peakLive = max(peakLive, live[0].Value.Uint64())
		}
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for i := 0; i < b.N; i++ {
		stop, sum := simulateTrace(b, traceRun{path: mooncakeTrace, engine: cfg, engines: 8, router: router,
			tick: tick}, filepath.Join(dir, "r.jsonl"))
		if stop.Reason != "done" {
			b.Fatalf("stop %q", stop.Reason)
		}
		tokens = 0
		for _, bs := range sum.Backends {
			tokens += bs.InputTokens + bs.OutputTokens
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peakHeap = max(peakHeap, ms.HeapSys)
	}
	wall := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(wall, "s/op")
	if cpu := cpuSeconds(); cpu > 0 {
		b.ReportMetric((cpu-cpu0)/float64(b.N), "cpu-s/op")
	}
	b.ReportMetric(12031/wall, "sim-req/s")
	b.ReportMetric(float64(tokens)/wall, "sim-tok/s")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakLive)/(1<<20), "peak-live-MB")
	if kb := vmHWM(); kb > 0 {
		b.ReportMetric(kb/1024, "peak-rss-MB")
	}
}

// traceRun is one simulated replay of a trace file.
type traceRun struct {
	path     string
	engine   engine.Config
	engines  int
	router   string
	queue    string
	capacity policies.Capacity
	// max is the number of records replayed (0 = all).
	max int
	// tick, when set, is called after every Result is counted.
	tick func()
}

// simulateTrace runs tr, writing a results file at out (its header's
// Started left zero, so two runs can be compared byte for byte) and
// feeding a report Accumulator, and returns the stop record and the
// Summary.
func simulateTrace(tb testing.TB, tr traceRun, out string) (results.Stop, *metrics.Summary) {
	tb.Helper()
	fs, err := traces.Open(tr.path, traces.ReadOptions{BlockSize: traces.DefaultBlockSize})
	if err != nil {
		tb.Fatal(err)
	}
	defer fs.Close()
	src := traces.WithArrivals(fs, traces.ArrivalOptions{TimeScale: 1, MaxRequests: tr.max})
	r, err := policies.NewRouter(tr.router, nil, rand.New(rand.NewPCG(1, 0x7261)))
	if err != nil {
		tb.Fatal(err)
	}
	q, err := policies.NewQueue(cmp.Or(tr.queue, "fcfs"), nil, rand.New(rand.NewPCG(1, 0x7175)))
	if err != nil {
		tb.Fatal(err)
	}
	h := results.Header{Version: results.Version, Policy: tr.router, Router: tr.router, Queue: q.Name(), Seed: 1,
		Trace: tr.path, Mode: "sim", Backends: sim.BackendNames(tr.engines)}
	w, err := results.Create(out, h)
	if err != nil {
		tb.Fatal(err)
	}
	acc := metrics.NewAccumulator(h, metrics.DefaultOptions())
	onResult := acc.Add
	if tr.tick != nil {
		onResult = func(r *results.Result) { acc.Add(r); tr.tick() }
	}
	cfgs := make([]engine.Config, tr.engines)
	for i := range cfgs {
		cfgs[i] = tr.engine
		cfgs[i].Seed = tr.engine.Seed + int64(i)
	}
	stop, err := sim.Run(context.Background(), sim.Options{Common: replay.Common{Source: src,
		Router: r, Queue: q, Capacity: tr.capacity, Results: w, OnResult: onResult, OnEvent: acc.AddEvent},
		Engines: cfgs})
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(stop); err != nil {
		tb.Fatal(err)
	}
	return stop, acc.Finish(&stop)
}

// vmHWM returns the process's peak resident set size in KiB from
// /proc/self/status (0 where that file does not exist).
// cpuSeconds is the process's user and system CPU time so far, in
// seconds, from /proc/self/stat (clock ticks of 1/100 s); 0 where there
// is no /proc.
func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: state is
	// the first, utime the 12th and stime the 13th.
	_, rest, ok := bytes.Cut(b, []byte(") "))
	f := bytes.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseFloat(string(f[11]), 64)
	s, _ := strconv.ParseFloat(string(f[12]), 64)
	return (u + s) / 100
}

func vmHWM() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseFloat(string(bytes.Fields(v)[0]), 64)
			return kb
		}
	}
	return 0
}

// BenchmarkSimulateLength replays the mixed workload (shared system
// prompts, multi-turn sessions) at 100 req/s on 8 default engines with
// prefix-cache, feeding a report Accumulator, at growing lengths. It
// samples the live heap (as of the last collection) every 5,000 Results
// and reports its peak (peak-live-MB; the collector's target is about
// twice that), with
// sim-req/s and sim-tok/s. Memory is flat in trace length when
// peak-live-MB does not grow with the request count:
//
//	go test -run XXX -bench 'SimulateLength' -benchtime 1x ./sim/
func BenchmarkSimulateLength(b *testing.B) {
	for _, n := range []int{20_000, 200_000, 1_000_000} {
		b.Run("requests="+strconv.Itoa(n), func(b *testing.B) {
			var peak uint64
			var tokens int64
			for i := 0; i < b.N; i++ {
				p, t := simulateWorkload(b, n)
				peak, tokens = max(peak, p), t
			}
			wall := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(n)/wall, "sim-req/s")
			b.ReportMetric(float64(tokens)/wall, "sim-tok/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// simulateWorkload runs n Requests of the mixed workload and returns the
// peak live heap sampled (bytes) and the prompt + completion tokens.
func simulateWorkload(b *testing.B, n int) (uint64, int64) {
	src, err := traces.NewWorkload("mixed", traces.Params{{Name: "requests", Value: traces.ParamInt(n)}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	paced := traces.WithArrivals(src, traces.ArrivalOptions{Rate: 100, Process: "poisson", Seed: 1})
	r, err := policies.NewRouter("prefix-cache", nil, rand.New(rand.NewPCG(1, 0x7261)))
	if err != nil {
		b.Fatal(err)
	}
	q, err := policies.NewQueue("fcfs", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	h := results.Header{Version: results.Version, Policy: r.Name(), Router: r.Name(), Queue: q.Name(), Seed: 1,
		Mode: "sim", Backends: sim.BackendNames(8)}
	acc := metrics.NewAccumulator(h, metrics.DefaultOptions())
	cfgs := make([]engine.Config, 8)
	for i := range cfgs {
		cfgs[i] = engine.DefaultConfig()
		cfgs[i].Seed = int64(i + 1)
	}
	var peak uint64
	var tokens int64
	seen := 0
	live := []rtmetrics.Sample{{Name: "/gc/heap/live:bytes"}} // as of the last collection
	onResult := func(res *results.Result) {
		acc.Add(res)
		tokens += int64(res.PromptTokens + res.CompletionTokens)
		if seen++; seen%5000 == 0 {
			rtmetrics.Read(live)
			peak = max(peak, live[0].Value.Uint64())
		}
	}
	stop, err := sim.Run(context.Background(), sim.Options{
		Common:  replay.Common{Source: paced, Router: r, Queue: q, OnResult: onResult, OnEvent: acc.AddEvent},
		Engines: cfgs})
	if err != nil || stop.Reason != "done" {
		b.Fatalf("stop %q: %v", stop.Reason, err)
	}
	return peak, tokens
}
