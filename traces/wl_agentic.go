package traces

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// agenticSpec: coding-agent sessions shaped as the published agentic
// coding sessions (FormatAgentic) are, at lengths a small fleet holds.
func agenticSpec() WorkloadSpec {
	return WorkloadSpec{
		Name: "agentic",
		Doc: "coding-agent sessions of turns_min..turns_max requests; each request resends the history (tool " +
			"definitions shared by every session, a per-session system prompt, the task, every answer and tool " +
			"result) plus a new tool result, and is sent a tool time (the Think, log-normal) after the previous " +
			"answer; with probability subagent_prob a request's tools start 1..subagents_max sub-agents at once, " +
			"each its own session (tool definitions shared by every sub-agent) whose first request waits for the " +
			"spawning one, and the parent's next request waits for all of them (After); arrivals assume answers " +
			"take token_time per output token; sessions start as a Poisson process",
		Params: slices.Concat([]ParamSpec{
			sessionUsersParam,
			{"tools_len", KindInt, "2048", "tool definitions shared by every session, tokens"},
			{"system_len", KindInt, "512", "per-session system prompt, tokens"},
			{"task_len", KindInt, "256", "mean opening task, tokens"},
			{"result_len", KindInt, "384", "mean tool result each later request adds, tokens"},
			{"output_len", KindInt, "232", "mean output per request, tokens"},
			jitterParam,
		}, turnsParams("4", "24", "requests"), []ParamSpec{
			{"tool_time", KindDuration, "8s", "median tool time between an answer and the next request"},
			{"tool_time_sigma", KindFloat, "1", "log-normal σ of the tool time (0 = always tool_time)"},
			{"token_time", KindDuration, "25ms", "response time per output token that the arrival times assume"},
			{"subagent_prob", KindFloat, "0.05", "probability that a request other than a session's last starts sub-agents"},
			{"subagents_max", KindInt, "3", "sub-agents started at once: uniform in 1..subagents_max, running concurrently"},
			{"subagent_turns_min", KindInt, "2", "fewest requests per sub-agent"},
			{"subagent_turns_max", KindInt, "8", "most requests per sub-agent"},
			{"subagent_tools_len", KindInt, "1024", "sub-agents' tool definitions, shared by every sub-agent, tokens"},
			{"rate", KindFloat, "4", "mean request rate, req/s"},
			requestsParam("400"),
		}),
		build: buildAgenticWorkload,
	}
}

// agenticGen holds the parameters of the agentic workload.
type agenticGen struct {
	seed                        uint64
	users                       int
	toolsLen, sysLen, taskLen   int
	resultLen, outLen           int
	jitter                      float64
	tmin, tmax                  int
	toolTime                    time.Duration
	sigma                       float64
	tokenTime                   time.Duration
	subProb                     float64
	subMax, subMin, subMaxTurns int
	subToolsLen                 int
	tools, subTools             string
}

// buildAgenticWorkload builds the agentic workload from p, seeded by seed;
// the shared tool definitions are made once the parameters are good.
func buildAgenticWorkload(p *params, seed uint64) (Source, error) {
	a := &agenticGen{seed: seed, users: p.intIn("users", 1, maxCount),
		toolsLen: p.tokens("tools_len", 0), sysLen: p.tokens("system_len", 0), taskLen: p.tokens("task_len", 1),
		resultLen: p.tokens("result_len", 1), outLen: p.tokens("output_len", 1), jitter: p.float("jitter", 0, 1),
		tmin: p.intIn("turns_min", 1, maxTurns), tmax: p.intIn("turns_max", 1, maxTurns),
		toolTime: p.duration("tool_time"), sigma: p.float("tool_time_sigma", 0, 10), tokenTime: p.duration("token_time"),
		subProb: p.float("subagent_prob", 0, 1), subMax: p.intIn("subagents_max", 1, 64),
		subMin: p.intIn("subagent_turns_min", 1, maxTurns), subMaxTurns: p.intIn("subagent_turns_max", 1, maxTurns),
		subToolsLen: p.tokens("subagent_tools_len", 0)}
	rate := p.positive("rate")
	g := newGenerator(seed, "agentic", p.int("requests", 1))
	p.rangeOK("turns_min", a.tmin, "turns_max", a.tmax)
	p.rangeOK("subagent_turns_min", a.subMin, "subagent_turns_max", a.subMaxTurns)
	src, err := poissonSource(p, g, rate/a.meanRequests(), a.start)
	if err != nil {
		return nil, err
	}
	a.tools = SynthWords(contentKey(seed, "ag-tools"), a.toolsLen)
	a.subTools = SynthWords(contentKey(seed, "ag-subagent-tools"), a.subToolsLen)
	return src, nil
}

// start builds session number i, of a uniformly drawn user, starting at
// at.
func (a *agenticGen) start(g *generator, i int, at time.Duration) []Request {
	return a.session(g, fmt.Sprintf("ag%d", i), fmt.Sprintf("u%d", g.rng.IntN(a.users)), at)
}

// meanRequests is the mean number of Requests of a session, sub-agents
// included.
func (a *agenticGen) meanRequests() float64 {
	turns := float64(a.tmin+a.tmax) / 2
	subs := a.subProb * (turns - 1) * float64(1+a.subMax) / 2
	return turns + subs*float64(a.subMin+a.subMaxTurns)/2
}

// prefix joins shared tool definitions and a system prompt.
func prefix(tools, system string) string {
	switch {
	case tools == "":
		return system
	case system == "":
		return tools
	}
	return tools + "\n" + system
}

// session builds one parent session starting at start, with its
// sub-agents.
func (a *agenticGen) session(g *generator, id, user string, start time.Duration) []Request {
	system := SynthWords(contentKey(a.seed, "ag-system", id), a.sysLen)
	c := newConvo(id, user, prefix(a.tools, system), a.toolsLen+a.sysLen)
	var subs []Request
	at, turns, nsub := start, g.uniformInt(a.tmin, a.tmax), 0
	var join []string // the last Requests of the sub-agents the next request waits for
	var think time.Duration
	for k := range turns {
		r, done := a.turn(g, c, k, turns, at, think, "task", a.taskLen)
		if len(join) > 0 {
			r.After = append([]string{c.out[k-1].ID}, join...)
		}
		next := done
		join = nil
		if k < turns-1 && g.rng.Float64() < a.subProb {
			for range g.uniformInt(1, a.subMax) {
				sub, end := a.subagent(g, fmt.Sprintf("%s/sa%d", id, nsub), user, r.ID, done)
				nsub++
				subs = append(subs, sub...)
				join = append(join, sub[len(sub)-1].ID)
				next = max(next, end)
			}
		}
		think = a.toolTimeDraw(g)
		at = addDur(next, think)
	}
	return append(c.out, subs...)
}

// subagent builds a sub-agent session whose first request waits for the
// request spawn, which ends at ready; it returns its Requests and the
// time its last answer ends.
func (a *agenticGen) subagent(g *generator, id, user, spawn string, ready time.Duration) ([]Request, time.Duration) {
	c := newConvo(id, user, a.subTools, a.subToolsLen)
	think := a.toolTimeDraw(g)
	at, turns := addDur(ready, think), g.uniformInt(a.subMin, a.subMaxTurns)
	var done time.Duration
	for k := range turns {
		var r *Request
		r, done = a.turn(g, c, k, turns, at, think, "instruction", a.taskLen)
		if k == 0 {
			r.After, r.Think, r.ThinkKnown = []string{spawn}, think, true
		}
		think = a.toolTimeDraw(g)
		at = addDur(done, think)
	}
	return c.out, done
}

// turn adds request k of turns to c, sent at at a think after its
// predecessors: the opening (kind, of mean length first) or a tool
// result. It returns the Request and when its answer ends.
func (a *agenticGen) turn(g *generator, c *convo, k, turns int, at, think time.Duration, kind string, first int) (*Request, time.Duration) {
	mean := a.resultLen
	if k == 0 {
		mean, kind = first, "ag-"+kind
	} else {
		kind = "ag-result"
	}
	q, out := g.jitter(mean, a.jitter), g.jitter(a.outLen, a.jitter)
	answer := ""
	if k < turns-1 {
		answer = SynthWords(contentKey(a.seed, "ag-answer", c.id, k), out)
	}
	c.ask(at, SynthWords(contentKey(a.seed, kind, c.id, k), q), q, out, answer)
	r := &c.out[len(c.out)-1]
	if k > 0 {
		r.Think, r.ThinkKnown = think, true
	}
	return r, addDur(at, secondsDur(float64(out)*a.tokenTime.Seconds()))
}

// toolTimeDraw draws a tool time: log-normal of median toolTime and σ.
func (a *agenticGen) toolTimeDraw(g *generator) time.Duration {
	if a.sigma == 0 {
		return a.toolTime
	}
	return secondsDur(a.toolTime.Seconds() * math.Exp(a.sigma*g.rng.NormFloat64()))
}
