package traces

import "time"

// chatParams are the parameters of multi-turn chat sessions: turns_min
// to turns_max turns (uniform between), mean lengths in tokens, the
// jitter around them, the mean think time and the request rate (req/s).
type chatParams struct {
	tmin, tmax  int
	first, qLen int // mean question tokens of turn 0 and later turns
	outLen      int // mean output tokens
	jitter      float64
	think       time.Duration
	rate        float64
}

// readChat reads turns_min, turns_max, firstName (the opening question's
// mean length; "" when it is question_len's), question_len, output_len,
// jitter, think and rate, in that order.
func readChat(p *params, firstName string) chatParams {
	var c chatParams
	c.tmin, c.tmax = p.intIn("turns_min", 1, maxTurns), p.intIn("turns_max", 1, maxTurns)
	if firstName != "" {
		c.first = p.tokens(firstName, 1)
	}
	c.qLen, c.outLen = p.tokens("question_len", 1), p.tokens("output_len", 1)
	if firstName == "" {
		c.first = c.qLen
	}
	c.jitter, c.think, c.rate = p.float("jitter", 0, 1), p.duration("think"), p.positive("rate")
	return c
}

// shape plans a session of user opening with system (sysLen tokens),
// drawing its number of turns from g.
func (c chatParams) shape(g *generator, user, system string, sysLen int) shape {
	return shape{user: user, system: system, sysLen: sysLen, turns: g.uniformInt(c.tmin, c.tmax),
		firstLen: c.first, qLen: c.qLen, outLen: c.outLen, jitter: c.jitter, think: c.think}
}

// source finishes g as a workload of chat sessions built by session,
// started as a Poisson process whose requests arrive at c.rate; it
// returns the first bad parameter's error instead.
func (c chatParams) source(p *params, g *generator, session func(g *generator, i int, at time.Duration) []Request) (Source, error) {
	if err := g.sessionGap(p, c.tmin, c.tmax, c.rate); err != nil {
		return nil, err
	}
	g.session = session
	return g, nil
}
