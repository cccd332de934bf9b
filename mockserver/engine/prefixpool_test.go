package engine

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Prefix-pool experiment of the hash-prefix-caching report (seeds): each
// of 1,000 requests is, with probability p, one of a pool of frequent
// prompts, else a random 15-token prompt; hit rate is counted once per
// request, on its prompt.
const (
	poolPrompts   = 10
	poolPromptLen = 100 // 6 whole blocks of 16 can hit (96 tokens)
	randomLen     = 15
	poolRequests  = 1000
	poolGap       = 20 * time.Millisecond
	poolOutput    = 8
)

// poolResult is one row of the experiment.
type poolResult struct {
	fromPool, withHit int
	stats             Stats
	makespan          time.Duration // from the first arrival to the last step's end
}

// runPrefixPool replays the experiment at probability p on an engine with
// the given KV capacity and the default eviction policy.
func runPrefixPool(t testing.TB, p float64, blocks int) poolResult {
	return runPrefixPoolWith(t, p, blocks, DefaultConfig().Eviction, poolGap)
}

// runPrefixPoolWith replays the experiment with an eviction policy and
// requests arriving every gap (0: all at once).
func runPrefixPoolWith(t testing.TB, p float64, blocks int, eviction string, gap time.Duration) poolResult {
	rng := rand.New(rand.NewPCG(42, uint64(p*1000)))
	pool := make([][]int, poolPrompts)
	for i := range pool {
		pool[i] = randomTokens(rng, poolPromptLen)
	}
	var arr []arrival
	res := poolResult{}
	for i := range poolRequests {
		pr := randomTokens(rng, randomLen)
		if rng.Float64() < p {
			pr = pool[rng.IntN(poolPrompts)]
			res.fromPool++
		}
		arr = append(arr, arrival{time.Duration(i) * gap,
			Request{ID: fmt.Sprint(i), Prompt: pr, MaxTokens: poolOutput, IgnoreEOS: true}})
	}
	cfg := DefaultConfig()
	cfg.NumGPUBlocks, cfg.Eviction = blocks, eviction
	e := mustNew(t, cfg)
	for _, st := range drive(t, e, arr, 1000000) {
		res.makespan = st.End()
		for _, ev := range st.Events {
			if ev.Admitted && ev.CachedTokens > 0 {
				res.withHit++
			}
		}
	}
	res.stats = e.Stats()
	return res
}

func randomTokens(rng *rand.Rand, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = rng.IntN(VocabSize)
	}
	return out
}

func hitRate(s Stats) float64 { return float64(s.PrefixHits) / float64(s.PrefixQueries) }

func TestPrefixPoolHitRate(t *testing.T) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "| p | from pool | requests with a hit | token hit rate | token hit rate, 48 blocks | evictions, 48 blocks |\n")
	fmt.Fprintf(&buf, "|---|---|---|---|---|---|\n")
	prevReq, prevTok := -1.0, -1.0
	for i := 1; i <= 10; i++ {
		p := float64(i) / 10
		big := runPrefixPool(t, p, DefaultConfig().NumGPUBlocks)
		small := runPrefixPool(t, p, 48)
		reqRate := float64(big.withHit) / poolRequests
		fmt.Fprintf(&buf, "| %.1f | %d | %.1f %% | %.1f %% | %.1f %% | %d |\n", p, big.fromPool, 100*reqRate,
			100*hitRate(big.stats), 100*hitRate(small.stats), small.stats.Evictions)
		if reqRate <= prevReq || hitRate(big.stats) <= prevTok {
			t.Errorf("p=%.1f: hit rate %.3f (requests) %.3f (tokens) does not rise over %.3f, %.3f",
				p, reqRate, hitRate(big.stats), prevReq, prevTok)
		}
		prevReq, prevTok = reqRate, hitRate(big.stats)
		if big.stats.Evictions != 0 {
			t.Errorf("p=%.1f: %d evictions with the default cache", p, big.stats.Evictions)
		}
	}
	golden(t, "prefix_pool_hitrate.golden", buf.Bytes())
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Fatalf("%s differs (-want +got); rerun with -update if intended:\n%s", path, diff)
	}
}

// BenchmarkPrefixPool measures the engine on the experiment's workload:
// simulated requests per wall second.
func BenchmarkPrefixPool(b *testing.B) {
	for b.Loop() {
		runPrefixPool(b, 0.5, DefaultConfig().NumGPUBlocks)
	}
	b.ReportMetric(float64(b.N*poolRequests)/b.Elapsed().Seconds(), "requests/s")
}
