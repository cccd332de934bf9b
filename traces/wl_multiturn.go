package traces

import (
	"fmt"
	"slices"
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
		Params: slices.Concat([]ParamSpec{
			sessionUsersParam,
			{"system_len", KindInt, "0", "per-session system prompt length, tokens (0 = none)"},
		}, turnsParams("2", "8", "turns"), []ParamSpec{
			{"first_len", KindInt, "256", "mean first question length, tokens"},
			{"question_len", KindInt, "64", "mean follow-up question length, tokens"},
			{"output_len", KindInt, "128", "mean output length, tokens"},
			jitterParam, thinkParam("10s"),
			{"rate", KindFloat, "4", "mean request rate, req/s"},
			requestsParam("400"),
		}),
		build: buildMultiTurn,
	}
}

// buildMultiTurn builds the multi-turn workload from p, seeded by seed.
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
