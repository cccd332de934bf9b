//go:build !race

// The golden comparison replays 33,000 picks, many through prefix-aware
// Routers, which the race detector slows twentyfold; CI runs it in its
// step without -race.

package policies

import (
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updatePredictions = flag.Bool("update", false, "rewrite testdata golden files")

// predictionRun routes 1,500 Mooncake-like Requests through a fresh Router
// named name over n Backends with varied loads and small caches on every
// other Backend (so the hit model evicts), feeding every pick back, and
// sums up the picks and predicted hits in one line.
func predictionRun(t testing.TB, name string, n int) string {
	bare := mustRouter(t, name, nil, 7)
	fb, _ := bare.(Feedback)
	r := PredictHits(bare)
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	h := fnv.New64a()
	sum := 0
	reqs := syntheticRequests(1500)
	for i, req := range reqs {
		bs := fleet(make([]int, n)...)
		for k := range bs {
			bs[k].InFlight, bs[k].InFlightTokens = rng.IntN(4), rng.IntN(4)*1000
			bs[k].KVUsage = float64(rng.IntN(10)) / 10
			if k%2 == 0 {
				bs[k].NumGPUBlocks = 40
			}
		}
		st := State{Now: req.Arrival, Backends: bs}
		if i%5 == 4 { // a filtered State, as the capacity filter gives
			st.Backends = bs[n/2:]
		}
		ch := mustPick(t, r, req, st)
		fmt.Fprintf(h, "%d/%d/%s;", ch.Backend, ch.PredictedHitTokens, ch.Reason)
		sum += ch.PredictedHitTokens
		if fb != nil {
			fb.Done(req.Arrival, req, Outcome{Backend: ch.Backend, PromptTokens: req.InputTokens, OutputTokens: req.OutputTokens})
		}
	}
	return fmt.Sprintf("%s backends=%d predicted=%d picks=%016x", name, n, sum, h.Sum64())
}

// TestPredictedHitsUnchanged pins every Router's picks, reasons and
// predicted hits on a fixed workload at 8 and 64 Backends. The golden file
// was written while each load-only Router still kept its own hit model;
// the shared model that now predicts for them must give the same figures.
func TestPredictedHitsUnchanged(t *testing.T) {
	clearPolicyEnv(t)
	var lines []string
	for _, name := range routerNames {
		for _, n := range []int{8, 64} {
			lines = append(lines, predictionRun(t, name, n))
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "predicted_hits.golden")
	if *updatePredictions {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("picks or predicted hits changed:\ngot:\n%s\nwant:\n%s", got, want)
	}
}
