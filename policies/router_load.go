package policies

import (
	"cmp"
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(Spec{
		Name:   "power-of-two",
		Doc:    "two distinct backends drawn uniformly with the seeded RNG; the less loaded one (in-flight tokens, then requests)",
		Needs:  []string{"in-flight"},
		Source: "Mitzenmacher, The Power of Two Choices in Randomized Load Balancing (IEEE TPDS 2001); SGLang router power_of_two",
		Params: []ParamSpec{
			{Name: "metric", Kind: kString, Default: traces.ParamString("tokens"), Doc: "load compared: tokens (client in-flight prompt+output tokens, then requests) or requests (then tokens)"},
		},
	}, newPowerOfTwo)
	registerPicker(Spec{
		Name: "least-kv-cache",
		Doc: "lowest scraped vllm:kv_cache_usage_perc (ties: fewer in-flight tokens, then seeded RNG); " +
			"unless every backend is scraped, the fewest client in-flight tokens instead",
		Needs:  []string{"scrape"},
		Source: "AIBrix least-kv-cache router (pkg/plugins/gateway/algorithms/least_kv_cache.go)",
	}, leastKVCache)
}

// powerOfTwo samples two distinct Backends and keeps the less loaded.
type powerOfTwo struct {
	rng    *rand.Rand
	tokens bool
}

func newPowerOfTwo(p Params, rng *rand.Rand) (Router, error) {
	m, err := p.OneOf("metric", "tokens", "requests")
	if err != nil {
		return nil, err
	}
	return &powerOfTwo{rng: rng, tokens: m == "tokens"}, nil
}

// Name implements Router.
func (r *powerOfTwo) Name() string { return "power-of-two" }

// Pick implements Router. With one Backend it takes that one; equal loads
// keep the first draw.
func (r *powerOfTwo) Pick(req *traces.Request, st State) (Choice, error) {
	n := len(st.Backends)
	if n == 0 {
		return Choice{}, errNoBackends
	}
	if n == 1 {
		return Choice{Backend: st.Backends[0].Index, Reason: "only"}, nil
	}
	i := r.rng.IntN(n)
	j := r.rng.IntN(n - 1)
	if j >= i {
		j++
	}
	a, b := st.Backends[i], st.Backends[j]
	if r.compare(b, a) < 0 {
		a = b
	}
	return Choice{Backend: a.Index, Reason: "two-choices"}, nil
}

func (r *powerOfTwo) compare(a, b Backend) int {
	if r.tokens {
		return cmp.Or(cmp.Compare(a.InFlightTokens, b.InFlightTokens), cmp.Compare(a.InFlight, b.InFlight))
	}
	return cmp.Or(cmp.Compare(a.InFlight, b.InFlight), cmp.Compare(a.InFlightTokens, b.InFlightTokens))
}

// leastKVCache picks the lowest scraped KV-cache usage. Without scrape
// data for every Backend (no --scrape, or a scrape failed) it falls back
// to the fewest client in-flight tokens, the client's own estimate of KV
// occupancy, so a partial scrape never compares unlike figures.
func leastKVCache(bs []Backend, rng *rand.Rand) (int, string) {
	if allScraped(bs) {
		return argmin(bs, rng, func(a, b *Backend) int {
			return cmp.Or(cmp.Compare(a.KVUsage, b.KVUsage), cmp.Compare(a.InFlightTokens, b.InFlightTokens))
		}), "kv-cache"
	}
	return argmin(bs, rng, func(a, b *Backend) int {
		return cmp.Or(cmp.Compare(a.InFlightTokens, b.InFlightTokens), cmp.Compare(a.InFlight, b.InFlight))
	}), "in-flight-tokens"
}

// argmin returns the position in bs of the least Backend under compare,
// breaking ties uniformly with rng (reservoir sampling: one pass, no
// allocation). compare takes pointers: a Backend is too large to copy
// twice per comparison.
func argmin(bs []Backend, rng *rand.Rand, compare func(a, b *Backend) int) int {
	best, ties := 0, 1
	for i := 1; i < len(bs); i++ {
		switch c := compare(&bs[i], &bs[best]); {
		case c < 0:
			best, ties = i, 1
		case c == 0:
			ties++
			if rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}
