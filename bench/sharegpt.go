package bench

import (
	"time"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// ShareGPT sets how a ShareGPT file, which has neither times nor
// token counts, becomes Requests (the ShareGPT fields of
// traces.ReadOptions). They are refused with a trace of another format
// or a generated workload, where they would be ignored.
type ShareGPT struct {
	// Tokenizer counts the tokens of the text: whitespace (default, as
	// the mock server counts), character or tiktoken.
	Tokenizer string
	// Think is the time between the turns of one conversation (default
	// traces.DefaultThinkTime, 10 s); Gap the time between the starts of
	// successive conversations (default traces.DefaultSessionGap, 1 s).
	Think, Gap time.Duration
	// Bound is set when these settings come from flags the command has:
	// commands without them skip the checks.
	Bound bool `json:"-"`
}

// DefaultShareGPTTokenizer is the ShareGPT tokenizer by default, the
// one the mock server counts with.
const DefaultShareGPTTokenizer = "whitespace"

// Validate checks the values, naming the Spec field.
func (s *ShareGPT) Validate() error {
	switch {
	case !s.Bound:
		return nil
	case s.Think <= 0:
		return fieldf("Spec.Workload.ShareGPT.Think", "Spec.Workload.ShareGPT.Think %v: want > 0", s.Think)
	case s.Gap <= 0:
		return fieldf("Spec.Workload.ShareGPT.Gap", "Spec.Workload.ShareGPT.Gap %v: want > 0", s.Gap)
	}
	if _, err := tokenizer.New(s.Tokenizer); err != nil {
		return fieldf("Spec.Workload.ShareGPT.Tokenizer", "Spec.Workload.ShareGPT.Tokenizer: %v", err)
	}
	return nil
}

// changed names the first field set off its default ("" when none).
func (s *ShareGPT) changed() string {
	switch {
	case !s.Bound:
		return ""
	case s.Tokenizer != DefaultShareGPTTokenizer:
		return "Spec.Workload.ShareGPT.Tokenizer"
	case s.Think != traces.DefaultThinkTime:
		return "Spec.Workload.ShareGPT.Think"
	case s.Gap != traces.DefaultSessionGap:
		return "Spec.Workload.ShareGPT.Gap"
	}
	return ""
}

// ReadOptions returns o with the ShareGPT fields set from the flags.
func (s *ShareGPT) ReadOptions(o traces.ReadOptions) traces.ReadOptions {
	if s.Bound {
		o.Tokenizer, o.ThinkTime, o.SessionGap = s.Tokenizer, s.Think, s.Gap
	}
	return o
}

// Check refuses a flag set off its default when the Requests come from
// a trace of another format, or from a generated workload (format "").
func (s *ShareGPT) Check(format string) error {
	f := s.changed()
	switch {
	case f == "" || format == traces.FormatShareGPT:
		return nil
	case format == "":
		return fieldf(f, "%s applies to ShareGPT traces only, not to a generated workload", f)
	}
	return fieldf(f, "%s applies to ShareGPT traces only; the trace is %s", f, format)
}
