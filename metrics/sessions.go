package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// maxTurnRows is how many turn indexes get their own TTFT row; later
// turns share the last row ("15+").
const maxTurnRows = 16

// SessionSummary describes the sessions of a Run: how long users spent,
// and how much of that was waiting for the fleet rather than reading,
// typing or running tools. Nil in a Summary when no Result had a session.
type SessionSummary struct {
	// Sessions counts sessions with a Result in the window; Completed
	// those whose every turn succeeded.
	Sessions  int `json:"sessions"`
	Completed int `json:"completed"`
	// Turns is the number of turns per session (mean and max).
	TurnsMean float64 `json:"turns_mean"`
	TurnsMax  int     `json:"turns_max"`
	// Time is the session time, first turn's arrival to last turn's end.
	Time Dist `json:"session_time"`
	// Fleet is each session's time waiting for the fleet (Σ of its turns'
	// E2E); Think its time between turns (Σ of think times).
	Fleet Dist `json:"fleet_time"`
	Think Dist `json:"think_time"`
	// FleetShare is Σ fleet time / Σ (fleet + think time) over sessions,
	// in [0, 1]: the share of the users' time the fleet added (NaN when
	// both are 0).
	FleetShare float64 `json:"fleet_share"`
	// FollowUps counts turns after the first; Early those sent before
	// the turn they follow had finished (an open-loop replay's users
	// asking before the answer arrived).
	FollowUps int `json:"follow_ups"`
	Early     int `json:"early"`
	// ByTurn is TTFT by turn index (the last row pools later turns).
	ByTurn []TurnTTFT `json:"ttft_by_turn"`
	// FailedTurns, EndedByFailure and Skipped are the stop line's counts
	// (-1 when it has none: open-loop, or a file written before them):
	// turns that failed, sessions a failed turn ended (--on-turn-failure
	// end) and turns not sent because their session had ended.
	FailedTurns    int `json:"failed_turns"`
	EndedByFailure int `json:"ended_by_failure"`
	Skipped        int `json:"skipped_turns"`
}

// addStop copies the pacing's counts from the stop line (s may be nil).
func (s *SessionSummary) addStop(stop *results.Stop) {
	if s == nil {
		return
	}
	s.FailedTurns, s.EndedByFailure, s.Skipped = -1, -1, -1
	if stop == nil {
		return
	}
	get := func(k string) int {
		if v, ok := stop.Extra[k]; ok {
			return int(v)
		}
		return -1
	}
	s.FailedTurns = get(replay.ExtraTurnsFailed)
	s.EndedByFailure = get(replay.ExtraSessionsEndedFail)
	s.Skipped = get(replay.ExtraTurnsSkipped)
}

// SessionRow is one session of a Run, for sessions.csv.
type SessionRow struct {
	// Session is the session's id; Turns its turns with a Result, Failed
	// those that failed.
	Session       string
	Turns, Failed int
	// Time is first arrival to last end; Fleet the sum of its turns'
	// E2E; Think the sum of its think times.
	Time, Fleet, Think time.Duration
}

// TurnTTFT is the TTFT of the successful turns of one turn index.
type TurnTTFT struct {
	// Turn is the index ("0" first), "15+" for the pooled row.
	Turn string `json:"turn"`
	TTFT Dist   `json:"ttft"`
}

// sessionAcc accumulates one session.
type sessionAcc struct {
	turns, failed int
	first, last   time.Duration
	fleet, think  time.Duration
	// open holds (sent, done) of turns whose neighbour has not been seen,
	// by turn index, to count turns sent before their predecessor ended.
	open map[int]*turnSeen
}

// sessionsAcc accumulates every session of a Run. Its memory grows with
// sessions (a few words each) and with turns seen out of order.
type sessionsAcc struct {
	by     map[string]*sessionAcc
	byTurn []*hdrhistogram.Histogram
	early  int
	follow int
}

// add folds one Result of a session.
func (a *sessionsAcc) add(r *results.Result) {
	if r.Session == "" {
		return
	}
	if a.by == nil {
		a.by = map[string]*sessionAcc{}
	}
	s := a.by[r.Session]
	if s == nil {
		s = &sessionAcc{first: r.Intended, open: map[int]*turnSeen{}}
		a.by[r.Session] = s
	}
	s.turns++
	s.first, s.last = min(s.first, r.Intended), max(s.last, r.Done)
	s.fleet += r.E2E()
	s.think += r.Think
	if !r.OK() {
		s.failed++
	} else {
		a.turnHist(r.Turn).RecordValue(max(r.TTFT().Microseconds(), 0))
	}
	if r.Turn > 0 {
		a.follow++
	}
	a.pair(s, r)
}

// pair counts r as early when the turn before it ended after r was
// sent, and the turn after it as early when it was sent before r ended.
// A turn is forgotten once both its neighbours were compared with it.
func (a *sessionsAcc) pair(s *sessionAcc, r *results.Result) {
	k := r.Turn
	cur := &turnSeen{sent: r.Sent, done: r.Done, prev: k == 0}
	if p := s.open[k-1]; p != nil {
		if r.Sent < p.done {
			a.early++
		}
		p.next, cur.prev = true, true
		s.forget(k-1, p)
	}
	if n := s.open[k+1]; n != nil {
		if n.sent < r.Done {
			a.early++
		}
		n.prev, cur.next = true, true
		s.forget(k+1, n)
	}
	s.open[k] = cur
	s.forget(k, cur)
}

// turnSeen is a turn whose neighbours are not both seen yet.
type turnSeen struct {
	sent, done time.Duration
	prev, next bool // compared with the turn before, after it
}

// forget drops turn k once both neighbours were compared with it.
func (s *sessionAcc) forget(k int, t *turnSeen) {
	if t.prev && t.next {
		delete(s.open, k)
	}
}

// turnHist is the TTFT histogram of turn index k.
func (a *sessionsAcc) turnHist(k int) *hdrhistogram.Histogram {
	i := min(max(k, 0), maxTurnRows-1)
	for len(a.byTurn) <= i {
		a.byTurn = append(a.byTurn, nil)
	}
	if a.byTurn[i] == nil {
		a.byTurn[i] = newHist()
	}
	return a.byTurn[i]
}

// rows returns every session, by id.
func (a *sessionsAcc) rows() []SessionRow {
	out := make([]SessionRow, 0, len(a.by))
	for id, s := range a.by {
		out = append(out, SessionRow{Session: id, Turns: s.turns, Failed: s.failed, Time: s.last - s.first,
			Fleet: s.fleet, Think: s.think})
	}
	slices.SortFunc(out, func(x, y SessionRow) int { return strings.Compare(x.Session, y.Session) })
	return out
}

// summary returns the sessions' figures (nil without sessions).
func (a *sessionsAcc) summary() *SessionSummary {
	if len(a.by) == 0 {
		return nil
	}
	t, f, th := newHist(), newHist(), newHist()
	out := &SessionSummary{Sessions: len(a.by), FollowUps: a.follow, Early: a.early}
	var turns int
	var fleet, think time.Duration
	for _, s := range a.by {
		turns += s.turns
		out.TurnsMax = max(out.TurnsMax, s.turns)
		if s.failed == 0 {
			out.Completed++
		}
		recordDur(t, s.last-s.first)
		recordDur(f, s.fleet)
		recordDur(th, s.think)
		fleet, think = fleet+s.fleet, think+s.think
	}
	out.TurnsMean = float64(turns) / float64(len(a.by))
	out.Time, out.Fleet, out.Think = distOf(t), distOf(f), distOf(th)
	out.FleetShare = math.NaN()
	if fleet+think > 0 {
		out.FleetShare = fleet.Seconds() / (fleet + think).Seconds()
	}
	for i, h := range a.byTurn {
		if h == nil {
			continue
		}
		label := strconv.Itoa(i)
		if i == maxTurnRows-1 {
			label += "+"
		}
		out.ByTurn = append(out.ByTurn, TurnTTFT{Turn: label, TTFT: distOf(h)})
	}
	return out
}
