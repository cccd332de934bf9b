package flags

import (
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/traces"
)

// BindAgentic binds the flags that shape agentic coding sessions
// (traces.AgenticOptions). Their defaults are the library's, so a trace
// read without them (replay --trace DIR) gets the same Requests.
func BindAgentic(fs *pflag.FlagSet, o *traces.AgenticOptions) {
	fs.Float64Var(&o.Scale, "agentic-scale", 1,
		"agentic sessions: multiply input and output lengths by this factor in (0, 1], keeping an evenly spread share of every prompt's blocks (block reuse between turns and sessions stays as recorded)")
	fs.IntVar(&o.MaxInput, "agentic-max-input", 0,
		"agentic sessions: cap each input at this many tokens after --agentic-scale, keeping its leading blocks (0 = no cap)")
	fs.DurationVar(&o.TokenTime, "agentic-token-time", traces.DefaultAgenticTokenTime,
		"agentic sessions: per-output-token time estimating a recorded response that states no api_time (think = gap − response)")
	fs.DurationVar(&o.Stagger, "agentic-stagger", traces.DefaultAgenticStagger,
		"agentic sessions: gap between the starts of successive session files of a directory, in name order")
	fs.StringVar(&o.Join, "agentic-join", traces.AgenticJoinRecorded,
		"agentic sessions: which parent request waits for a sub-agent: recorded (the first sent after the sub-agent ended) or next (the parent's next request)")
}

// CheckAgentic refuses, when the flags are bound, zero durations
// (the library would read them as its defaults) and flags set off their
// defaults for a generated workload (path "").
func CheckAgentic(o traces.AgenticOptions, path string) error {
	switch {
	case o == traces.AgenticOptions{}:
		return nil // the command has no --agentic-* flags
	case o.TokenTime == 0:
		return usagef("--agentic-token-time 0s: want > 0")
	case o.Stagger == 0:
		return usagef("--agentic-stagger 0s: want > 0 (%v starts the sessions together)", time.Nanosecond)
	case path == "" && o.Changed() != "":
		return usagef("%s applies to an agentic trace, not to a generated workload", o.Changed())
	}
	return nil
}
