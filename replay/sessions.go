package replay

import (
	"fmt"
	"time"
)

// SessionMode says when a session's next turn is sent.
type SessionMode string

// Session modes.
const (
	// SessionsClosed sends a turn a think time after the last of its
	// predecessors (the previous turn, or the Requests its After names)
	// has finished: no turn goes out before the answer it follows. The
	// default.
	SessionsClosed SessionMode = "closed"
	// SessionsOpen sends every Request at its trace time (Arrival),
	// whether or not the turn before it has been answered: for traces
	// whose times are the truth.
	SessionsOpen SessionMode = "open"
)

// TurnFailure says what a failed turn (an error Result: refused, timed
// out, broken) does to the rest of its session in a closed-loop replay.
type TurnFailure string

// Turn failure policies.
const (
	// FailContinue sends the session's next turn anyway, a think time
	// after the failure, as a user who asks again (default).
	FailContinue TurnFailure = "continue"
	// FailEnd ends the session: its later turns (and the Requests that
	// wait for them) are not sent, and are counted as skipped.
	FailEnd TurnFailure = "end"
)

// DefaultSessionHorizon is how far, in trace time, the replay reads
// ahead of a finished turn to find the session's next one (30 minutes).
// A later turn is found when the replay reaches its trace time.
const DefaultSessionHorizon = 30 * time.Minute

// Sessions configures how the turns of sessions are paced. The zero value
// is closed-loop with replies fed back, sessions starting at their trace
// times, and a failed turn letting its session go on.
type Sessions struct {
	// Mode is SessionsClosed (default, "") or SessionsOpen.
	Mode SessionMode
	// OnFailure is FailContinue (default, "") or FailEnd.
	OnFailure TurnFailure
	// Users, when > 0, keeps that many sessions running (a closed
	// system): a user starts the next session of the Source as soon as
	// its session ends, and session start times of the trace are ignored.
	// 0: sessions start at their trace times (rate-driven).
	Users int
	// Ramp spreads the Users' first sessions evenly over this time
	// (default 0: all start at once).
	Ramp time.Duration
	// MidStart starts each of the Users' first sessions at a turn drawn
	// uniformly from its turns, so the run begins with contexts of every
	// length in flight (a steady state) rather than every session at its
	// first turn. The turns before it are skipped, not sent.
	MidStart bool
	// NoFeedBack keeps the trace's answers in later turns' prompts.
	// Otherwise a turn's prompt carries the answer the server actually
	// gave to the turn before it (text for text prompts, token ids for
	// token-exact ones), as a chat client does.
	NoFeedBack bool
	// Horizon is how far ahead in trace time the replay reads to find a
	// finished turn's successor (default DefaultSessionHorizon).
	Horizon time.Duration
	// Seed draws MidStart's turns (the same seed gives the same draws).
	Seed uint64
	// StopAt, when > 0, ends a closed-loop run's dispatch: no Request is
	// released at or after this run time (they are counted as skipped).
	// Open-loop runs are cut by trace time instead (the Source's
	// ArrivalOptions.Duration).
	StopAt time.Duration
}

// Validate checks the options; errors name the field.
func (o Sessions) Validate() error {
	switch o.Mode {
	case "", SessionsClosed, SessionsOpen:
	default:
		return fmt.Errorf("Sessions.Mode: unknown %q (known: closed, open)", o.Mode)
	}
	switch o.OnFailure {
	case "", FailContinue, FailEnd:
	default:
		return fmt.Errorf("Sessions.OnFailure: unknown %q (known: continue, end)", o.OnFailure)
	}
	switch {
	case o.Users < 0:
		return fmt.Errorf("Sessions.Users: %d is negative", o.Users)
	case o.Ramp < 0:
		return fmt.Errorf("Sessions.Ramp: %v is negative", o.Ramp)
	case o.Horizon < 0:
		return fmt.Errorf("Sessions.Horizon: %v is negative", o.Horizon)
	case o.StopAt < 0:
		return fmt.Errorf("Sessions.StopAt: %v is negative", o.StopAt)
	case o.Mode == SessionsOpen && o.Users > 0:
		return fmt.Errorf("Sessions.Users: %d users need closed-loop sessions, not open", o.Users)
	case o.MidStart && o.Users == 0:
		return fmt.Errorf("Sessions.MidStart: starting mid-conversation needs Users > 0")
	}
	return nil
}

// closed reports closed-loop pacing.
func (o Sessions) closed() bool { return o.Mode != SessionsOpen }

// horizon is Horizon or its default.
func (o Sessions) horizon() time.Duration {
	if o.Horizon > 0 {
		return o.Horizon
	}
	return DefaultSessionHorizon
}
