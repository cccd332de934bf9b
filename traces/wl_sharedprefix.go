package traces

import (
	"fmt"
	"time"
)

// sharedPrefixSpec: groups of prompts sharing a system prompt, as SGLang's
// bench_serving generated-shared-prefix dataset (gsp-num-groups 64,
// gsp-prompts-per-group 16, gsp-system-prompt-len 2048, gsp-question-len
// 128, gsp-output-len 256: the preset "sglang"; shuffled unless
// gsp-ordered). Our defaults are smaller so a run fits a laptop mock.
func sharedPrefixSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "shared-prefix",
		Doc: "groups × prompts_per_group requests; the prompts of a group share a system prompt of system_len " +
			"tokens followed by a question of question_len tokens; output_len tokens each; Poisson arrivals at " +
			"rate; shuffled over groups unless ordered=true. preset=sglang sets SGLang's generated-shared-prefix " +
			"defaults (64 × 16, 2048/128/256). More requests than groups × prompts_per_group repeat the groups " +
			"with new questions.",
		Params: append([]ParamSpec{
			{"groups", KindInt, "8", "number of distinct system prompts"},
			{"prompts_per_group", KindInt, "16", "requests per system prompt in one round"},
			{"system_len", KindInt, "1024", "system prompt length, tokens"},
			{"question_len", KindInt, "128", "question length, tokens"},
			outputParam("256"),
			{"ordered", KindBool, "false", "send a group's prompts together instead of shuffled"},
			poissonRateParam("8"),
			{"requests", KindInt, "0", "total requests (0 = groups × prompts_per_group)"},
		}, adapterParams...),
		Presets: map[string]map[string]string{
			"sglang": {"groups": "64", "prompts_per_group": "16", "system_len": "2048", "question_len": "128", "output_len": "256"},
		},
		build: buildSharedPrefix,
	}
}

// buildSharedPrefix builds the shared-prefix workload from p, seeded by
// seed.
func buildSharedPrefix(p *params, seed uint64) (Source, error) {
	groups, per := p.intIn("groups", 1, maxCount), p.intIn("prompts_per_group", 1, maxCount)
	sysLen, qLen, outLen := p.tokens("system_len", 0), p.tokens("question_len", 1), p.tokens("output_len", 1)
	ordered, rate, n := p.bool("ordered"), p.positive("rate"), p.int("requests", 0)
	ad := readAdapters(p)
	if p.err == nil && groups*per > maxCount {
		return nil, fmt.Errorf("groups × prompts_per_group = %d: want at most %d", groups*per, maxCount)
	}
	if n == 0 {
		n = groups * per
	}
	round := groups * per
	g := newGenerator(seed, "shared-prefix", n)
	var perm []int
	return poissonSource(p, g, rate, func(g *generator, i int, at time.Duration) []Request {
		if i%round == 0 {
			perm = g.order(round, ordered)
		}
		slot := perm[i%round]
		grp, q := slot/per, slot%per
		sys := SynthWords(contentKey(seed, "sp-system", grp), sysLen)
		question := SynthWords(contentKey(seed, "sp-question", i/round, grp, q), qLen)
		r := single(fmt.Sprintf("sp%d", i), "", at, sys, sysLen, question, qLen, outLen)
		r.LoRA = ad.pick(g.rng, grp)
		return []Request{r}
	})
}

// order returns 0..n-1, shuffled unless ordered.
func (g *generator) order(n int, ordered bool) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	if !ordered {
		g.rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	}
	return perm
}
