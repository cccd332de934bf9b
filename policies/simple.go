package policies

import (
	"errors"
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
)

// errNoBackends is returned by Routers given an empty State.
var errNoBackends = errors.New("no backends to pick from")

func init() {
	registerPicker(Spec{Name: "random", Doc: "uniform random backend from the seeded RNG",
		Source: "baseline (AIBrix random, SGLang router random)"},
		func(bs []Backend, rng *rand.Rand) (int, string) { return rng.IntN(len(bs)), "random" })
	RegisterRouter(Spec{Name: "round-robin", Doc: "cycle over backends in index order, skipping absent ones",
		Source: "baseline (vLLM production-stack roundrobin, SGLang router round_robin)"},
		func(_ Params, _ *rand.Rand) (Router, error) { return &roundRobin{}, nil })
	registerPicker(Spec{Name: "least-request", Doc: "fewest client-side in-flight requests; ties broken by the seeded RNG",
		Needs: []string{"in-flight"}, Source: "AIBrix least-request; vLLM production-stack"},
		func(bs []Backend, rng *rand.Rand) (int, string) { return leastLoadedPos(bs, rng), "least-request" })
}

// roundRobin cycles over backends by Index; with a filtered State it takes
// the first backend at or after the cursor.
type roundRobin struct {
	next int
}

// Name implements Router.
func (r *roundRobin) Name() string { return "round-robin" }

// Pick implements Router.
func (r *roundRobin) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	best := st.Backends[0]
	for _, b := range st.Backends {
		if b.Index >= r.next {
			best = b
			break
		}
	}
	r.next = best.Index + 1
	return Choice{Backend: best.Index, Reason: "round-robin"}, nil
}

// LeastLoaded returns the Index of the Backend with the fewest in-flight
// requests, breaking ties uniformly with rng (reservoir sampling, so one
// pass and no allocation).
func LeastLoaded(bs []Backend, rng *rand.Rand) (int, error) {
	if len(bs) == 0 {
		return 0, errNoBackends
	}
	return bs[leastLoadedPos(bs, rng)].Index, nil
}

// leastLoadedPos is LeastLoaded's position in bs (len(bs) > 0).
func leastLoadedPos(bs []Backend, rng *rand.Rand) int {
	best, ties := 0, 1
	for i := 1; i < len(bs); i++ {
		switch {
		case bs[i].InFlight < bs[best].InFlight:
			best, ties = i, 1
		case bs[i].InFlight == bs[best].InFlight:
			ties++
			if rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}
