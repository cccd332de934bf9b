package cli

import (
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// shareGPTFlags set how a ShareGPT file, which has neither times nor
// token counts, becomes Requests (the ShareGPT fields of
// traces.ReadOptions). They are refused with a trace of another format
// or a generated workload, where they would be ignored.
type shareGPTFlags struct {
	// Tokenizer counts the tokens of the text: whitespace (default, as
	// the mock server counts), character or tiktoken.
	Tokenizer string
	// Think is the time between the turns of one conversation (default
	// traces.DefaultThinkTime, 10 s); Gap the time between the starts of
	// successive conversations (default traces.DefaultSessionGap, 1 s).
	Think, Gap time.Duration
	// bound is set by bind: commands without these flags skip the checks.
	bound bool
}

const defaultShareGPTTokenizer = "whitespace"

func (s *shareGPTFlags) bind(fs *pflag.FlagSet) {
	s.bound = true
	fs.StringVar(&s.Tokenizer, "sharegpt-tokenizer", defaultShareGPTTokenizer,
		"tokenizer counting ShareGPT text in tokens: whitespace|character|tiktoken")
	fs.DurationVar(&s.Think, "sharegpt-think", traces.DefaultThinkTime,
		"time between the turns of one ShareGPT conversation")
	fs.DurationVar(&s.Gap, "sharegpt-gap", traces.DefaultSessionGap,
		"time between the starts of successive ShareGPT conversations")
}

// validate checks the values, naming the flag.
func (s *shareGPTFlags) validate() error {
	switch {
	case !s.bound:
		return nil
	case s.Think <= 0:
		return usagef("--sharegpt-think %v: want > 0", s.Think)
	case s.Gap <= 0:
		return usagef("--sharegpt-gap %v: want > 0", s.Gap)
	}
	if _, err := tokenizer.New(s.Tokenizer); err != nil {
		return usagef("--sharegpt-tokenizer: %v", err)
	}
	return nil
}

// changed names the first flag set off its default ("" when none).
func (s *shareGPTFlags) changed() string {
	switch {
	case !s.bound:
		return ""
	case s.Tokenizer != defaultShareGPTTokenizer:
		return "sharegpt-tokenizer"
	case s.Think != traces.DefaultThinkTime:
		return "sharegpt-think"
	case s.Gap != traces.DefaultSessionGap:
		return "sharegpt-gap"
	}
	return ""
}

// readOptions returns o with the ShareGPT fields set from the flags.
func (s *shareGPTFlags) readOptions(o traces.ReadOptions) traces.ReadOptions {
	if s.bound {
		o.Tokenizer, o.ThinkTime, o.SessionGap = s.Tokenizer, s.Think, s.Gap
	}
	return o
}

// check refuses a flag set off its default when the Requests come from
// a trace of another format, or from a generated workload (format "").
func (s *shareGPTFlags) check(format string) error {
	f := s.changed()
	switch {
	case f == "" || format == traces.FormatShareGPT:
		return nil
	case format == "":
		return usagef("--%s applies to ShareGPT traces only, not to a generated workload", f)
	}
	return usagef("--%s applies to ShareGPT traces only; the trace is %s", f, format)
}
