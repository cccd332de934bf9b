package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

// bigRun is the benchmark's Run: one million requests from 200 users over
// 16 Backends at 200 req/s (about 83 minutes of trace time).
func bigRun() synthRun {
	users := make([]string, 200)
	for i := range users {
		users[i] = fmt.Sprintf("user-%03d", i)
	}
	return synthRun{policy: "prefix-cache", n: 1_000_000, backends: 16, users: users, rate: 200,
		ttft: 80 * time.Millisecond, tbt: 20 * time.Millisecond, errEvery: 500, seed: 5, scrape: true}
}

// bigResultsFile returns the path of the benchmark's results file,
// writing it once into the temporary directory (about 370 MB) and reusing
// it across benchmark runs.
func bigResultsFile(b *testing.B) string {
	path := filepath.Join(os.TempDir(), "tracebench-bench-1m", "results-prefix-cache.jsonl")
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return path
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	return bigRun().write(b, filepath.Dir(path))
}

// BenchmarkReport1M streams a million-request results file into a
// Summary and writes the full report (markdown, plots, CSV, JSON).
func BenchmarkReport1M(b *testing.B) {
	path := bigResultsFile(b)
	o := metrics.DefaultOptions()
	o.SLO.TTFT, o.SLO.TPOT = 300*time.Millisecond, 30*time.Millisecond
	out := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := metrics.Summarize(path, o)
		if err != nil {
			b.Fatal(err)
		}
		if s.Requests != 1_000_000 {
			b.Fatalf("%d requests, want 1000000", s.Requests)
		}
		if err := WriteDir(out, []*metrics.Summary{s}, RenderOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkAccumulatorAdd measures folding one Result in.
func BenchmarkAccumulatorAdd(b *testing.B) {
	r := bigRun()
	rng := newTestRand(1)
	rs := make([]*replayResult, 4096)
	for i := range rs {
		rs[i] = r.result(i, rng)
	}
	a := metrics.NewAccumulator(r.header(), metrics.DefaultOptions())
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		a.Add(rs[i%len(rs)])
		i++
	}
}
