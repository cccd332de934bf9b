package traces

import (
	"fmt"
	"slices"
	"time"
)

// multiTenantSpec: single-turn requests from users of unequal rates and
// lengths, one a heavy hitter, for fairness experiments (VTC: Sheng et
// al., OSDI 2024, measure service per user under such load).
func multiTenantSpec() WorkloadSpec {
	ps := slices.Concat(tenantParams("8", "0.5"), []ParamSpec{
		{"system_len", KindInt, "256", "per-user system prompt length, tokens (each user its own)"},
		{"input_len", KindInt, "512", "mean question length, tokens (times the user's factor)"},
		tenantOutputParam,
		jitterParam,
		{"rate", KindFloat, "8", "mean request rate over all users, req/s (Poisson)"},
		requestsParam("480"),
	}, adapterParams)
	return WorkloadSpec{
		Name: "multi-tenant",
		Doc: "single-turn requests from users with unequal rates (heavy hitter u0 with heavy_share of the " +
			"requests, a Zipf tail) and unequal lengths (a log-normal factor per user); each user has its own " +
			"system prompt",
		Params: ps,
		build:  buildMultiTenant,
	}
}

// buildMultiTenant builds the multi-tenant workload from p, seeded by seed.
func buildMultiTenant(p *params, seed uint64) (Source, error) {
	g, ten := newTenantGenerator(p, seed, "multi-tenant")
	sysLen, inLen, outLen := p.tokens("system_len", 0), p.tokens("input_len", 1), p.tokens("output_len", 1)
	jit, rate := p.float("jitter", 0, 1), p.positive("rate")
	ad := readAdapters(p)
	return poissonSource(p, g, rate, func(g *generator, i int, at time.Duration) []Request {
		u := ten.pick(g.rng)
		q, out := g.jitter(ten.scaled(u, inLen), jit), g.jitter(ten.scaled(u, outLen), jit)
		sys := SynthWords(contentKey(seed, "tenant-system", u), sysLen)
		question := SynthWords(contentKey(seed, "tenant-question", i), q)
		r := single(fmt.Sprintf("tn%d", i), ten.names[u], at, sys, sysLen, question, q, out)
		r.LoRA = ad.pick(g.rng, u)
		return []Request{r}
	})
}
