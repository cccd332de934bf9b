package traces

// jitterParam spreads the generated lengths around their means.
var jitterParam = ParamSpec{"jitter", KindFloat, "0.5", "lengths are uniform within ±jitter of their mean"}

// sessionUsersParam is the number of users owning the sessions, 16 by
// default, each session's drawn uniformly.
var sessionUsersParam = ParamSpec{"users", KindInt, "16", "users owning the sessions (uniform)"}

// turnsParams bound a session's number of per ("turns", "requests"),
// uniform between turns_min (default lo) and turns_max (default hi).
func turnsParams(lo, hi, per string) []ParamSpec {
	return []ParamSpec{
		{"turns_min", KindInt, lo, "fewest " + per + " per session"},
		{"turns_max", KindInt, hi, "most " + per + " per session (uniform between)"},
	}
}

// thinkParam is the mean think time before a chat's follow-up turn, of
// default def ("10s").
func thinkParam(def string) ParamSpec {
	return ParamSpec{"think", KindDuration, def, "mean think time before a follow-up turn (exponential; after the answer closed-loop)"}
}

// poissonRateParam is the mean arrival rate (req/s) of a Poisson process,
// of default def.
func poissonRateParam(def string) ParamSpec {
	return ParamSpec{"rate", KindFloat, def, "mean arrival rate, req/s (Poisson)"}
}

// requestsParam is the number of Requests a workload generates, of
// default def.
func requestsParam(def string) ParamSpec {
	return ParamSpec{"requests", KindInt, def, "total requests"}
}

// outputParam is the fixed output length of single-turn workloads, of
// default def tokens.
func outputParam(def string) ParamSpec {
	return ParamSpec{"output_len", KindInt, def, "output length, tokens"}
}
