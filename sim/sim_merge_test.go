package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// simulateShard simulates shard i of n of simWorkload into path and
// returns its stop record; late is added to the stop as mock step
// lateness (µs), as a run scraping a mock fleet would carry it (marked
// as scraped), and late/100 as host CPU steal (%), as a real-time run on
// Linux would.
func simulateShard(t *testing.T, path string, i, n int, late float64) results.Stop {
	t.Helper()
	r, _ := policies.NewRouter("session-affinity", nil, rand.New(rand.NewPCG(1, 2)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	w, err := results.Create(path, results.Header{Version: results.Version, Policy: r.Name(), Trace: "sim workload", Mode: "sim", Seed: 1,
		Shard: fmt.Sprintf("%d/%d", i, n)})
	if err != nil {
		t.Fatal(err)
	}
	stop, err := Run(context.Background(), Options{Common: replay.Common{Source: results.ShardSource(traces.NewSliceSource(simWorkload()), i, n),
		Router: r, Queue: q, Results: w},
		Engines: []engine.Config{engine.DefaultConfig()}})
	if err != nil {
		t.Fatal(err)
	}
	stop.Extra = replay.MergeExtra(stop.Extra, map[string]float64{results.ExtraMockLateP99: late, results.ExtraMockLateMax: 2 * late,
		results.ExtraMockLateScraped: 1, results.ExtraHostStealPct: late / 100})
	if err := w.Close(stop); err != nil {
		t.Fatal(err)
	}
	return stop
}

// TestMergeSimulatedShards merges three simulated shards and checks the
// merged file holds every Result once (Seq renumbered 0..n−1), sums the
// engine counters and keeps the worst shard's lateness percentiles, its
// scraped mark and host steal.
func TestMergeSimulatedShards(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	var hits float64
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		stop := simulateShard(t, p, i, 3, float64(100*(i+1)))
		hits += stop.Extra[results.ExtraPrefixHits]
		paths = append(paths, p)
	}
	out := filepath.Join(dir, "merged.jsonl")
	st, err := results.Merge(out, paths)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(results.MergeStats{Shards: 3, Results: 200}, st); diff != "" {
		t.Fatalf("merge stats (-want +got):\n%s", diff)
	}
	rd, ids := readMerged(t, out)
	if len(ids) != 200 || rd.Header.Shards != 3 || rd.Header.Shard != "" {
		t.Fatalf("%d distinct requests, header shards %d shard %q; want 200, 3, \"\"", len(ids), rd.Header.Shards, rd.Header.Shard)
	}
	want := map[string]float64{results.ExtraPrefixHits: hits, results.ExtraMockLateP99: 300, results.ExtraMockLateMax: 600,
		results.ExtraMockLateScraped: 1, results.ExtraHostStealPct: 3}
	for k, v := range want {
		if got := rd.Stop.Extra[k]; got != v {
			t.Errorf("stop extra %s = %v, want %v", k, got, v)
		}
	}
	if hits == 0 || rd.Stop.Reason != "done" {
		t.Fatalf("prefix hits %v, stop %q: want hits and done", hits, rd.Stop.Reason)
	}
}

// readMerged reads a merged file, requiring Seq 0..n−1 in order, and
// returns the reader (header and stop) and the set of request IDs.
func readMerged(t *testing.T, path string) (*results.Reader, map[string]bool) {
	t.Helper()
	rd := mustOpenResults(t, path)
	ids := map[string]bool{}
	for seq := int64(0); ; {
		r, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd, ids
		}
		if err != nil {
			t.Fatal(err)
		}
		if r != nil {
			if r.Seq != seq {
				t.Fatalf("result %s has seq %d, want %d", r.ID, r.Seq, seq)
			}
			seq++
			ids[r.ID] = true
		}
	}
}

// TestMergeRejectsMismatchedShards checks each refusal names the files.
func TestMergeRejectsMismatchedShards(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	simulateShard(t, a, 0, 2, 0)
	simulateShard(t, b, 1, 2, 0)
	other := filepath.Join(dir, "other.jsonl")
	w, err := results.Create(other, results.Header{Version: results.Version, Policy: "random", Trace: "sim workload", Mode: "sim", Seed: 1, Shard: "1/2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(results.Stop{Reason: "done"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"none", nil, "no shard files"},
		{"same shard twice", []string{a, b, a}, "a.jsonl and " + a + " are both shard 0/2"},
		{"another run", []string{a, other}, "other.jsonl is another run (policy random"},
		{"missing", []string{a, filepath.Join(dir, "nope.jsonl")}, "nope.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := results.Merge(filepath.Join(dir, "m.jsonl"), tc.paths)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
