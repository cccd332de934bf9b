package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// TestSameSeedSamePicks replays one trace twice through fresh Routers with
// the same seed: every pick must be identical (DESIGN: every random choice
// takes a seed). A different seed must change random's picks.
func TestSameSeedSamePicks(t *testing.T) {
	clearPolicyEnv(t)
	traceSets := map[string]func(t *testing.T) []*traces.Request{
		"synthetic": func(*testing.T) []*traces.Request { return syntheticRequests(600) },
		"mooncake":  func(t *testing.T) []*traces.Request { return mooncakeRequests(t, 300) },
	}
	for setName, load := range traceSets {
		t.Run(setName, func(t *testing.T) {
			reqs := load(t)
			for _, name := range routerNames {
				t.Run(name, func(t *testing.T) {
					runs := make([][]int, 2)
					for i := range runs {
						f := newSimFleet(8, 500_000/simBlock)
						f.run(t, mustRouter(t, name, nil, 42), reqs)
						runs[i] = f.picks
					}
					if diff := cmp.Diff(runs[0], runs[1]); diff != "" {
						t.Errorf("same seed, different picks (-first +second):\n%s", diff)
					}
				})
			}
		})
	}
	t.Run("seed matters", func(t *testing.T) {
		reqs := syntheticRequests(200)
		a, b := newSimFleet(8, 500_000/simBlock), newSimFleet(8, 500_000/simBlock)
		a.run(t, mustRouter(t, "random", nil, 1), reqs)
		b.run(t, mustRouter(t, "random", nil, 2), reqs)
		if cmp.Equal(a.picks, b.picks) {
			t.Errorf("seeds 1 and 2 gave identical random picks")
		}
	})
}

// TestPrefixAwareRoutersRaiseHitRate replays the start of the Mooncake
// conversation trace on a simulated fleet of 8 servers with exact LRU
// prefix caches: the prefix-aware Routers must earn a higher server hit
// rate than random and round-robin (measured: prefix-cache 25 %,
// approx-prefix 26 %, cache-aware 29 %, random 9 %, round-robin 9 %).
func TestPrefixAwareRoutersRaiseHitRate(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 2,000 Mooncake requests per router")
	}
	clearPolicyEnv(t)
	reqs := mooncakeRequests(t, 2000)
	rates := map[string]float64{}
	for _, name := range []string{"random", "round-robin", "prefix-cache", "approx-prefix", "cache-aware"} {
		// 8 servers of 4M tokens each. At GIE's 500k tokens (31,250 blocks
		// of 16, HBM of one 80 GB GPU) every server's cache turns over in
		// about 100 s of this trace, older turns are gone wherever they
		// were routed, and all routers score 5-7 %.
		f := newSimFleet(8, 4_000_000/simBlock)
		f.run(t, mustRouter(t, name, nil, 7), reqs)
		rates[name] = f.hitRate()
		t.Logf("%-16s server hit rate %5.1f %%  predicted %5.1f %%", name, 100*f.hitRate(), 100*f.predRate())
	}
	baseline := max(rates["random"], rates["round-robin"])
	for _, name := range []string{"prefix-cache", "approx-prefix", "cache-aware"} {
		if rates[name] <= baseline {
			t.Errorf("%s hit rate %.3f is not above random/round-robin %.3f", name, rates[name], baseline)
		}
	}
}
