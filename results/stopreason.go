package results

// StopReason is why a Run ended: the reason of its results file's stop
// line. Its values are the strings results files hold.
type StopReason string

// The stop reasons of a Run.
const (
	// StopDone: the Run replayed every Request it was given (also when
	// its duration or request limit ended it) and none is in flight.
	StopDone StopReason = "done"
	// StopInterrupted: the Run's context was canceled (Ctrl-C) before
	// it was done.
	StopInterrupted StopReason = "interrupted"
	// StopErrorLimit: a sweep cut the Run short because its error rate
	// passed the limit (SweepSpec.MaxErrorRate).
	StopErrorLimit StopReason = "error-limit"
	// StopSLOUnreachable: a plan cut the Run short once so many of its
	// Requests had missed the SLO that it could no longer reach its
	// attainment target (plan.Spec.Attainment).
	StopSLOUnreachable StopReason = "slo-unreachable"
	// StopAsMeasured: a simulated Run cut at the stop time of the
	// measured run it predicts (sim.Cut.StopAt).
	StopAsMeasured StopReason = "stopped-as-measured"
	// StopIncomplete: a file merged from shards one of which has no
	// stop line (its shard was killed).
	StopIncomplete StopReason = "incomplete: a shard has no stop line"
)

// StopError is the reason of a Run that ended on err: "error: " and
// err's text.
func StopError(err error) StopReason { return StopReason("error: " + err.Error()) }
