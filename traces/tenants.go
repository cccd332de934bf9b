package traces

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// tenants are users with unequal request rates and lengths: user u0 is the
// heavy hitter with heavyShare of the requests; the rest share the
// remainder in proportion to 1/(rank)^skew (Zipf), and every user scales
// its mean lengths by a factor drawn log-normally with σ = spread (mean
// 1), so some users send longer prompts than others.
type tenants struct {
	names []string
	cum   []float64 // cumulative request shares
	scale []float64 // per-user length factors
}

// newTenants draws the users' length factors from rng.
func newTenants(rng *rand.Rand, n int, heavyShare, skew, spread float64) *tenants {
	t := &tenants{names: make([]string, n), cum: make([]float64, n), scale: make([]float64, n)}
	w := make([]float64, n)
	if n == 1 {
		w[0] = 1
	} else {
		rest := 0.0
		for u := 1; u < n; u++ {
			w[u] = 1 / math.Pow(float64(u), skew)
			rest += w[u]
		}
		w[0] = heavyShare
		for u := 1; u < n; u++ {
			w[u] *= (1 - heavyShare) / rest
		}
	}
	acc := 0.0
	for u := range n {
		t.names[u] = fmt.Sprintf("u%d", u)
		acc += w[u]
		t.cum[u] = acc
		t.scale[u] = math.Exp(spread*rng.NormFloat64() - spread*spread/2)
	}
	return t
}

// pick draws a user index by share.
func (t *tenants) pick(rng *rand.Rand) int {
	x := rng.Float64() * t.cum[len(t.cum)-1]
	for u, c := range t.cum {
		if x < c {
			return u
		}
	}
	return len(t.cum) - 1
}

// scaled returns mean·factor of user u, in [1, MaxTokens].
func (t *tenants) scaled(u, mean int) int {
	return int(max(1, min(MaxTokens, math.Round(float64(mean)*t.scale[u]))))
}

// tenantParams are the ParamSpecs shared by workloads with tenants.
func tenantParams(users, heavy string) []ParamSpec {
	return []ParamSpec{
		{"users", KindInt, users, "number of users (tenants)"},
		{"heavy_share", KindFloat, heavy, "share of requests from the heavy hitter u0, 0..1"},
		{"skew", KindFloat, "1", "Zipf exponent of the other users' shares (0 = equal)"},
		{"length_spread", KindFloat, "0.5", "σ of each user's log-normal length factor (0 = equal lengths)"},
	}
}

// readTenants builds tenants from tenantParams.
func readTenants(p *params, rng *rand.Rand) *tenants {
	n := p.intIn("users", 1, maxCount)
	heavy := p.float("heavy_share", 0, 1)
	skew := p.float("skew", 0, 10)
	spread := p.float("length_spread", 0, 3)
	if p.err != nil {
		return nil
	}
	return newTenants(rng, n, heavy, skew, spread)
}

// shape is one generated conversation's plan.
type shape struct {
	user           string
	system         string
	sysLen         int
	turns          int
	firstLen, qLen int // mean question tokens of turn 0 and later turns
	outLen         int // mean output tokens
	jitter         float64
	think          time.Duration // mean think time before a follow-up turn
}

// conversation generates the turns of one session starting at start:
// lengths jittered uniformly ±jitter around their means, think times
// exponential with mean think.
func (g *generator) conversation(seed uint64, id string, start time.Duration, s shape) []Request {
	c := newConvo(id, s.user, s.system, s.sysLen)
	at := start
	for k := range s.turns {
		mean := s.qLen
		if k == 0 {
			mean = s.firstLen
		}
		q, out := g.jitter(mean, s.jitter), g.jitter(s.outLen, s.jitter)
		answer := ""
		if k < s.turns-1 {
			answer = SynthWords(contentKey(seed, "answer", id, k), out)
		}
		c.ask(at, SynthWords(contentKey(seed, "question", id, k), q), q, out, answer)
		think := secondsDur(g.rng.ExpFloat64() * s.think.Seconds())
		if k < s.turns-1 {
			c.thinkNext = think
		}
		at = addDur(at, think)
	}
	return c.out
}
