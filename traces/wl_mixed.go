package traces

import (
	"fmt"
	"slices"
	"time"
)

// mixedSpec is the bench default: tenants of unequal rates (a heavy
// hitter and a Zipf tail) whose multi-turn sessions start with one of a
// few shared system prompts. Sized for about 60 s: 300 requests at a
// steady-state 6 req/s (about 5 req/s over the first minute while
// sessions ramp up). With a mean output near 135 tokens and the mock's
// 6–8 ms decode step a request decodes in about 1 s, so a 4-replica mock
// holds 1.2–1.5 requests per replica, busy roughly 70–80 % of the time
// under Poisson arrivals (1 − e^−λS).
func mixedSpec() WorkloadSpec {
	ps := slices.Concat(tenantParams("8", "0.4"), []ParamSpec{
		{"groups", KindInt, "4", "number of shared system prompts (user u uses prompt u mod groups)"},
		{"system_len", KindInt, "256", "system prompt length, tokens"},
	}, turnsParams("1", "5", "turns"), []ParamSpec{
		{"question_len", KindInt, "64", "mean question length per turn, tokens (times the user's factor)"},
		tenantOutputParam,
		jitterParam, thinkParam("8s"),
		{"rate", KindFloat, "6", "mean request rate, req/s (sessions start as Poisson at rate / mean turns)"},
		requestsParam("300"),
	})
	return WorkloadSpec{
		Name: "mixed",
		Doc: "the bench default blend: users of unequal rates (heavy hitter u0, Zipf tail) run multi-turn " +
			"sessions whose context grows turn by turn, each opening with one of a few shared system prompts",
		Params: ps,
		build:  buildMixed,
	}
}

// buildMixed builds the mixed workload from p, seeded by seed.
func buildMixed(p *params, seed uint64) (Source, error) {
	g, ten := newTenantGenerator(p, seed, "mixed")
	groups, sysLen := p.intIn("groups", 1, maxCount), p.tokens("system_len", 0)
	c := readChat(p, "")
	return c.source(p, g, func(g *generator, i int, at time.Duration) []Request {
		u := ten.pick(g.rng)
		s := c.shape(g, ten.names[u], SynthWords(contentKey(seed, "mixed-system", u%groups), sysLen), sysLen)
		s.firstLen, s.qLen, s.outLen = ten.scaled(u, s.firstLen), ten.scaled(u, s.qLen), ten.scaled(u, s.outLen)
		return g.conversation(seed, fmt.Sprintf("mx%d", i), at, s)
	})
}
