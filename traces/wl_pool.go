package traces

import (
	"fmt"
	"time"
)

// prefixPoolSpec is the prompt generator of the hash prefix caching report
// (its §3.1; see docs/traces.md, "Workloads"): a pool of frequent prompts;
// each request is a pool prompt with probability p, else a random prompt
// of 15 tokens; 1000 requests. The report does not state the pool's size
// or its prompts' length: 10 prompts of 32 tokens (two 16-token KV blocks,
// so a paged prefix cache can hit them) are our choice.
func prefixPoolSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "prefix-pool",
		Doc: "each request repeats one of pool_size frequent prompts (uniformly) with probability p, " +
			"else is a fresh random prompt of random_len tokens (the hash prefix caching report's generator)",
		Params: []ParamSpec{
			{"p", KindFloat, "0.5", "probability of a pool prompt, 0..1"},
			{"pool_size", KindInt, "10", "number of frequent prompts"},
			{"pool_len", KindInt, "32", "length of a pool prompt, tokens"},
			{"random_len", KindInt, "15", "length of a random prompt, tokens (the report's 15)"},
			outputParam("32"),
			poissonRateParam("10"),
			{"requests", KindInt, "1000", "total requests (the report's 1000)"},
		},
		build: buildPrefixPool,
	}
}

// buildPrefixPool builds the prefix-pool workload from p, seeded by seed.
func buildPrefixPool(p *params, seed uint64) (Source, error) {
	prob, pool := p.float("p", 0, 1), p.intIn("pool_size", 1, maxCount)
	poolLen, randLen, outLen := p.tokens("pool_len", 1), p.tokens("random_len", 1), p.tokens("output_len", 1)
	rate := p.positive("rate")
	g := newGenerator(seed, "prefix-pool", p.int("requests", 1))
	return poissonSource(p, g, rate, func(g *generator, i int, at time.Duration) []Request {
		id := fmt.Sprintf("pp%d", i)
		if g.rng.Float64() < prob {
			k := g.rng.IntN(pool)
			return []Request{single(id, "", at, "", 0, SynthWords(contentKey(seed, "pool", k), poolLen), poolLen, outLen)}
		}
		return []Request{single(id, "", at, "", 0, SynthWords(contentKey(seed, "random", i), randLen), randLen, outLen)}
	})
}
