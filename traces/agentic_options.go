package traces

import (
	"fmt"
	"math"
	"time"
)

// Defaults of AgenticOptions.
const (
	// DefaultAgenticTokenTime estimates a recorded response that states
	// no api_time: 25 ms per output token, the median of api_time / out
	// over the 1,640 requests that state both in 60 of the published
	// sessions (p25 20 ms, p75 32 ms).
	DefaultAgenticTokenTime = 25 * time.Millisecond
	// DefaultAgenticStagger is the gap between the starts of successive
	// session files (10 s: 60 sessions start over 10 minutes).
	DefaultAgenticStagger = 10 * time.Second
)

// Join rules of AgenticOptions.Join: which parent request waits for a
// sub-agent.
const (
	// AgenticJoinRecorded: the parent's first request sent, in the
	// recording, after the sub-agent ended (its start plus duration_ms,
	// else its last request's end); a sub-agent that outlives its
	// parent's requests is waited for by none. Published sessions
	// have parents that go on while a sub-agent runs.
	AgenticJoinRecorded = "recorded"
	// AgenticJoinNext: the parent's next request after the sub-agent
	// entries waits for every sub-agent started since its previous
	// request, as kv-cache-tester's replayer pauses the parent. A
	// request the recording shows sent before those sub-agents ended is
	// sent at their end (Think 0), and the parent's later requests move
	// by as much.
	AgenticJoinNext = "next"
)

// AgenticOptions shape the Requests read from agentic coding sessions;
// the zero value takes every default.
type AgenticOptions struct {
	// Scale multiplies every input and output length by a factor in
	// (0, 1] (0 means 1), so sessions fit a smaller fleet. A Request
	// keeps the blocks at the positions i where floor((i+1)·Scale) >
	// floor(i·Scale), the same positions in every Request: a prefix two
	// Requests share keeps the same share of their scaled blocks, so
	// block reuse between turns and between sessions, and the infinite-
	// cache hit rate, stay as recorded (within a block per Request).
	// Think times and arrivals are not scaled.
	Scale float64
	// MaxInput caps a Request's input, after Scale, at this many tokens
	// (0 = no cap): the leading blocks are kept in order and the end is
	// dropped. Sharing of the kept prefix (tool definitions, system
	// prompt, early history) between turns and sessions stays; once a
	// session's context passes the cap its turns resend the same capped
	// prefix, so reuse between its turns rises above the recording.
	MaxInput int
	// TokenTime estimates the original response time of a request that
	// states no api_time, per output token (0 = DefaultAgenticTokenTime).
	TokenTime time.Duration
	// Stagger is the gap between the starts of successive session files
	// in name order (0 = DefaultAgenticStagger).
	Stagger time.Duration
	// Join is AgenticJoinRecorded (the default when empty) or
	// AgenticJoinNext.
	Join string
}

// Changed names the field of the first option set off its default
// ("AgenticOptions.Scale"; "" when none is): the options apply to agentic
// traces only.
func (o AgenticOptions) Changed() string {
	switch {
	case o.Scale != 0 && o.Scale != 1:
		return "AgenticOptions.Scale"
	case o.MaxInput != 0:
		return "AgenticOptions.MaxInput"
	case o.TokenTime != 0 && o.TokenTime != DefaultAgenticTokenTime:
		return "AgenticOptions.TokenTime"
	case o.Stagger != 0 && o.Stagger != DefaultAgenticStagger:
		return "AgenticOptions.Stagger"
	case o.Join != "" && o.Join != AgenticJoinRecorded:
		return "AgenticOptions.Join"
	}
	return ""
}

// resolve checks the options, naming the field of a bad one, and fills
// in the defaults.
func (o AgenticOptions) resolve() (AgenticOptions, error) {
	switch {
	case math.IsNaN(o.Scale) || o.Scale < 0 || o.Scale > 1:
		return o, fmt.Errorf("AgenticOptions.Scale %v: want a factor in (0, 1]", o.Scale)
	case o.MaxInput < 0 || o.MaxInput > MaxTokens:
		return o, fmt.Errorf("AgenticOptions.MaxInput %d: want 0 (no cap) to %d tokens", o.MaxInput, MaxTokens)
	case o.TokenTime < 0:
		return o, fmt.Errorf("AgenticOptions.TokenTime %v: want > 0", o.TokenTime)
	case o.Stagger < 0:
		return o, fmt.Errorf("AgenticOptions.Stagger %v: want > 0", o.Stagger)
	case o.Join != "" && o.Join != AgenticJoinRecorded && o.Join != AgenticJoinNext:
		return o, fmt.Errorf("AgenticOptions.Join %q: want recorded or next", o.Join)
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.TokenTime == 0 {
		o.TokenTime = DefaultAgenticTokenTime
	}
	if o.Stagger == 0 {
		o.Stagger = DefaultAgenticStagger
	}
	if o.Join == "" {
		o.Join = AgenticJoinRecorded
	}
	return o, nil
}

// checkAgenticOptions refuses agentic options for a trace of another
// format.
func checkAgenticOptions(format string, o AgenticOptions) error {
	if f := o.Changed(); f != "" && format != FormatAgentic {
		return fmt.Errorf("%s applies to the %s format, not to a %s trace", f, FormatAgentic, format)
	}
	return nil
}
