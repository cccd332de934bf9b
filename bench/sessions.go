package bench

import (
	"time"

	"github.com/tracebench/tracebench/replay"
)

// Sessions sets how the turns of sessions are paced. Each field is the
// command-line flag of the same name; the zero value is the default:
// closed-loop users whose turns carry the answers the server gave,
// sessions starting at their trace times, a failed turn letting its
// session go on.
type Sessions struct {
	// Pacing is --sessions: "closed" (default, ""), each turn sent a
	// think time after the turn it follows has finished, or "open", every
	// Request at its trace time.
	Pacing string
	// OnFailure is --on-turn-failure: "continue" (default, "") or "end"
	// (a failed turn ends its session; its later turns are skipped).
	OnFailure string
	// Users is --users: keep that many sessions running, a user starting
	// the next session as its last one ends (0: sessions start at their
	// trace times).
	Users int
	// Ramp is --ramp: the Users start evenly over this time (default 0).
	Ramp time.Duration
	// MidStart is --mid-start: the Users' first sessions start at a turn
	// drawn from their turns, so the run begins in a steady state.
	MidStart bool
	// NoFeedback is --no-feedback: later turns keep the trace's answers
	// instead of the server's.
	NoFeedback bool
}

// replay is the pacing the Run uses, seeded by seed; a closed-loop Run
// releases nothing at or after stop (--duration, run time; 0: no limit).
func (s Sessions) replay(seed uint64, stop time.Duration) replay.Sessions {
	o := replay.Sessions{Mode: replay.SessionMode(s.Pacing), OnFailure: replay.TurnFailure(s.OnFailure),
		Users: s.Users, Ramp: s.Ramp, MidStart: s.MidStart, NoFeedBack: s.NoFeedback, Seed: seed}
	if s.closed() {
		o.StopAt = stop
	}
	return o
}

// closed reports closed-loop pacing (the default).
func (s Sessions) closed() bool { return s.Pacing != string(replay.SessionsOpen) }

// check validates the options as a UsageError naming the field.
func (s Sessions) check() error {
	switch s.Pacing {
	case "", string(replay.SessionsClosed), string(replay.SessionsOpen):
	default:
		return fieldf("Spec.Workload.Sessions.Pacing", "Spec.Workload.Sessions.Pacing %q: want closed or open", s.Pacing)
	}
	switch s.OnFailure {
	case "", string(replay.FailContinue), string(replay.FailEnd):
	default:
		return fieldf("Spec.Workload.Sessions.OnFailure", "Spec.Workload.Sessions.OnFailure %q: want continue or end", s.OnFailure)
	}
	switch {
	case s.Users < 0:
		return fieldf("Spec.Workload.Sessions.Users", "Spec.Workload.Sessions.Users %d: want 0 or more", s.Users)
	case s.Ramp < 0:
		return fieldf("Spec.Workload.Sessions.Ramp", "Spec.Workload.Sessions.Ramp %v: want 0 or more", s.Ramp)
	case s.Users > 0 && s.Pacing == string(replay.SessionsOpen):
		return fieldf("Spec.Workload.Sessions.Users", "Spec.Workload.Sessions.Users %d: users wait for their answers, "+
			"so they need closed-loop sessions (Spec.Workload.Sessions.Pacing is open)", s.Users)
	case s.MidStart && s.Users == 0:
		return fieldf("Spec.Workload.Sessions.MidStart", "Spec.Workload.Sessions.MidStart: starting mid-conversation "+
			"needs Spec.Workload.Sessions.Users")
	}
	return nil
}
