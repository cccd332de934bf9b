package replay

// SessionStats count what the closed-loop pacing did in a Run.
type SessionStats struct {
	// Released counts Requests released to the loop.
	Released int
	// Sessions counts sessions that ended (every turn finished or skipped).
	Sessions int
	// FailedTurns counts turns that finished with an error.
	FailedTurns int
	// EndedByFailure counts sessions a failed turn ended (FailEnd).
	EndedByFailure int
	// Skipped counts turns not sent because their session had ended.
	Skipped int
	// MidStartSkipped counts turns skipped to start the Users' first
	// sessions mid-conversation.
	MidStartSkipped int
	// PastStop counts Requests not sent because they came due at or after
	// Sessions.StopAt (those waiting for them included).
	PastStop int
}

// Stop record keys of the closed-loop pacing (Stop.Extra).
const (
	ExtraSessionsEnded     = "sessions_ended"
	ExtraTurnsFailed       = "session_turns_failed"
	ExtraSessionsEndedFail = "sessions_ended_by_failure"
	ExtraTurnsSkipped      = "session_turns_skipped"
	ExtraMidStartSkipped   = "session_turns_skipped_mid_start"
	ExtraPastStop          = "session_turns_past_stop"
)

// Extra is the stop record's share of the pacing (nil when open-loop).
func (g *Gate) Extra() map[string]float64 {
	if !g.o.closed() {
		return nil
	}
	s := g.stats
	return map[string]float64{ExtraSessionsEnded: float64(s.Sessions), ExtraTurnsFailed: float64(s.FailedTurns),
		ExtraSessionsEndedFail: float64(s.EndedByFailure), ExtraTurnsSkipped: float64(s.Skipped),
		ExtraMidStartSkipped: float64(s.MidStartSkipped), ExtraPastStop: float64(s.PastStop)}
}
