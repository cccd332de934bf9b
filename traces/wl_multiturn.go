package traces

import (
	"fmt"
	"time"
)

// multiTurnSpec: chat sessions whose context grows turn by turn (each
// turn resends the history plus a new question), think time between
// turns. Defaults follow the shape of multi-turn chat benchmarks: a
// longer opening message, shorter follow-ups.
func multiTurnSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "multi-turn",
		Doc: "sessions of turns_min..turns_max turns; turn k resends the history (system prompt, earlier " +
			"questions and answers) plus a new question; a follow-up comes think (exponential) after " +
			"the previous turn (its answer closed-loop, its arrival open-loop); sessions start as a Poisson process at rate / mean turns",
		Params: []ParamSpec{
			{"users", KindInt, "16", "users owning the sessions (uniform)"},
			{"system_len", KindInt, "0", "per-session system prompt length, tokens (0 = none)"},
			{"turns_min", KindInt, "2", "fewest turns per session"},
			{"turns_max", KindInt, "8", "most turns per session (uniform between)"},
			{"first_len", KindInt, "256", "mean first question length, tokens"},
			{"question_len", KindInt, "64", "mean follow-up question length, tokens"},
			{"output_len", KindInt, "128", "mean output length, tokens"},
			{"jitter", KindFloat, "0.5", "lengths are uniform within ±jitter of their mean"},
			{"think", KindDuration, "10s", "mean think time before a follow-up turn (exponential; after the answer closed-loop)"},
			{"rate", KindFloat, "4", "mean request rate, req/s"},
			{"requests", KindInt, "400", "total requests"},
		},
		build: buildMultiTurn,
	}
}

func buildMultiTurn(p *params, seed uint64) (Source, error) {
	g := newGenerator(seed, "multi-turn", p.int("requests", 1))
	users, sysLen := p.intIn("users", 1, maxCount), p.tokens("system_len", 0)
	c := readChat(p, "first_len")
	return c.source(p, g, func(g *generator, i int, at time.Duration) []Request {
		id := fmt.Sprintf("mt%d", i)
		user := fmt.Sprintf("u%d", g.rng.IntN(users))
		return g.conversation(seed, id, at, c.shape(g, user, SynthWords(contentKey(seed, "mt-system", id), sysLen), sysLen))
	})
}
