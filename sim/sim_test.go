package sim

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// simWorkload is 200 requests in 20 sessions sharing 4 system prompts
// (as block ids), 50 ms apart.
func simWorkload() []traces.Request {
	var out []traces.Request
	for i := 0; i < 200; i++ {
		sys := uint64(i % 4)
		out = append(out, traces.Request{ID: fmt.Sprint(i), Session: fmt.Sprint("s", i%20),
			Arrival: time.Duration(i) * 50 * time.Millisecond, BlockIDs: []uint64{sys, 100 + sys, uint64(1000 + i)},
			BlockSize: 64, InputTokens: 180, OutputTokens: 20 + i%30})
	}
	return out
}

func simulate(t *testing.T, router string, path string) (results.Stop, []*results.Result) {
	t.Helper()
	r, err := policies.NewRouter(router, nil, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	q, _ := policies.NewQueue("fcfs", nil, nil)
	w, err := results.Create(path, results.Header{Version: results.Version, Policy: router, Mode: "sim"})
	if err != nil {
		t.Fatal(err)
	}
	cfgs := make([]engine.Config, 2)
	for i := range cfgs {
		cfgs[i] = engine.DefaultConfig()
		cfgs[i].Seed = int64(i + 1)
	}
	var got []*results.Result
	stop, err := Run(context.Background(), Options{Common: replay.Common{Source: traces.NewSliceSource(simWorkload()),
		Router: r, Queue: q, Results: w, OnResult: func(r *results.Result) { got = append(got, r) }},
		Engines: cfgs})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(stop); err != nil {
		t.Fatal(err)
	}
	return stop, got
}

func TestSimulateCompletesEveryRequest(t *testing.T) {
	stop, got := simulate(t, "least-request", filepath.Join(t.TempDir(), "r.jsonl"))
	if stop.Reason != "done" || len(got) != 200 {
		t.Fatalf("stop %q with %d results, want done with 200", stop.Reason, len(got))
	}
	cached := 0
	for _, r := range got {
		if !r.OK() || r.TTFT() <= 0 || r.CompletionTokens != r.OutputTokens || r.Chunks != r.OutputTokens {
			t.Fatalf("bad result %+v", r)
		}
		if r.OutputTokens > 1 && (len(r.Gaps) == 0 || r.TPOT() <= 0) {
			t.Fatalf("no TBT for %+v", r)
		}
		cached += r.CachedTokens
	}
	if cached == 0 || stop.Extra[results.ExtraPrefixHits] != float64(cached) {
		t.Fatalf("cached tokens %d, engine hits %v: want equal and positive", cached, stop.Extra[results.ExtraPrefixHits])
	}
	// Virtual time: the run spans the trace (10 s), not the wall clock.
	if stop.Elapsed < 9*time.Second {
		t.Fatalf("elapsed %v, want about the 10 s trace span", stop.Elapsed)
	}
}

func TestSimulateDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	simulate(t, "random", a)
	simulate(t, "random", b)
	ba, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	// The header's Started is zero here; every other line must match.
	if !bytes.Equal(ba, bb) {
		t.Fatal("two simulations with the same seed wrote different results files")
	}
}
