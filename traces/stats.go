package traces

import (
	"io"
	"math"
	"slices"
	"time"
)

// LengthStats summarises token lengths over a trace.
type LengthStats struct {
	// Mean is the mean length in tokens.
	Mean float64 `json:"mean"`
	// P50, P90 and P99 are nearest-rank percentiles; Max the largest.
	P50 int `json:"p50"`
	P90 int `json:"p90"`
	P99 int `json:"p99"`
	Max int `json:"max"`
	// Total is the sum of lengths.
	Total int64 `json:"total"`
}

// TraceStats describes a trace as `tracebench trace stats` prints it.
type TraceStats struct {
	// Requests is the number of Requests.
	Requests int `json:"requests"`
	// Span is the last arrival minus the first.
	Span time.Duration `json:"span_ns"`
	// Rate is Requests / Span in req/s (0 for a zero span).
	Rate float64 `json:"rate"`
	// Input and Output are the prompt and output lengths in tokens.
	Input  LengthStats `json:"input"`
	Output LengthStats `json:"output"`
	// Users and Sessions count distinct non-empty ids; MaxTurns is the
	// most turns seen in one session.
	Users    int `json:"users"`
	Sessions int `json:"sessions"`
	MaxTurns int `json:"max_turns"`
	// SubSessions counts the sessions whose first Request waits (After)
	// on a Request of another session: sub-agents.
	SubSessions int `json:"sub_sessions,omitempty"`
	// Joins counts the Requests that wait on more than their session's
	// previous Request: a parent joining its sub-agents.
	Joins int `json:"joins,omitempty"`
	// Think summarises the think times the trace states (ThinkKnown);
	// nil when it states none.
	Think *DurationStats `json:"think,omitempty"`
	// Recorded summarises what the trace recorded about the original
	// requests (Request.Recorded); nil when nothing.
	Recorded *RecordedStats `json:"recorded,omitempty"`
	// Blocks summarises the Requests that carry block ids.
	Blocks *BlockStats `json:"blocks,omitempty"`
}

// BlockStats measures prefix reuse in a block-id trace (Mooncake
// hash_ids): how many blocks appeared in an earlier Request, and the
// token hit rate of an infinite prefix cache, which serves a Request's
// leading blocks that all appeared before (ids are chained, so a match
// stops at the first new block), capped at its InputTokens.
type BlockStats struct {
	// Requests is the number of Requests with block ids.
	Requests int `json:"requests"`
	// Blocks is the number of block ids over those Requests.
	Blocks int64 `json:"blocks"`
	// Seen is how many of those appeared in an earlier Request.
	Seen int64 `json:"seen"`
	// LeadingSeen is how many seen blocks lie in the matched leading
	// prefix of their Request (equal to Seen when reuse is prefix-only).
	LeadingSeen int64 `json:"leading_seen"`
	// SeenShare is Seen / Blocks; LeadingShare is LeadingSeen / Seen.
	SeenShare    float64 `json:"seen_share"`
	LeadingShare float64 `json:"leading_share"`
	// HitTokens and InputTokens give HitRate = HitTokens / InputTokens,
	// the infinite-cache token hit rate.
	HitTokens   int64   `json:"hit_tokens"`
	InputTokens int64   `json:"input_tokens"`
	HitRate     float64 `json:"hit_rate"`
	// SessionSeen is how many blocks appeared in an earlier Request of
	// the same session (Requests with a Session only); SessionHitTokens
	// the hit tokens of the leading blocks all seen in the same session,
	// and SessionHitRate = SessionHitTokens / InputTokens: reuse between
	// a session's turns. HitRate − SessionHitRate is the reuse that only
	// other sessions' Requests give.
	SessionSeen      int64   `json:"session_seen"`
	SessionHitTokens int64   `json:"session_hit_tokens"`
	SessionHitRate   float64 `json:"session_hit_rate"`
}

// statsAcc accumulates TraceStats. Memory: 8 bytes per Request for the
// percentiles (16 with a think time), plus the distinct users, sessions,
// block ids and (session, block id) pairs.
type statsAcc struct {
	st          TraceStats
	first, last time.Duration
	in, out     []int32
	users       map[string]struct{}
	sessions    map[string]*sessionAcc
	seen        map[uint64]struct{}
	blocks      BlockStats
	sessionStatsAcc
}

// Stats reads src to the end and describes it.
func Stats(src Source) (TraceStats, error) {
	a := &statsAcc{users: map[string]struct{}{}, sessions: map[string]*sessionAcc{}, seen: map[uint64]struct{}{}}
	for {
		r, err := src.Next()
		if err == io.EOF {
			return a.finish(), nil
		}
		if err != nil {
			return a.finish(), err
		}
		a.add(&r)
	}
}

func (a *statsAcc) add(r *Request) {
	if a.st.Requests == 0 {
		a.first = r.Arrival
	}
	a.st.Requests++
	a.last = r.Arrival
	a.in = append(a.in, int32(min(r.InputTokens, 1<<31-1)))
	a.out = append(a.out, int32(min(r.OutputTokens, 1<<31-1)))
	if r.User != "" {
		a.users[r.User] = struct{}{}
	}
	sess := a.addSession(r)
	a.addRecorded(r)
	if len(r.BlockIDs) > 0 {
		a.addBlocks(r, sess)
	}
}

// addBlocks counts one Request's reuse, then marks its blocks seen;
// sess is its session's index, -1 when it has none.
func (a *statsAcc) addBlocks(r *Request, sess int) {
	b := &a.blocks
	b.Requests++
	b.Blocks += int64(len(r.BlockIDs))
	b.InputTokens += int64(r.InputTokens)
	lead := 0
	for lead < len(r.BlockIDs) {
		if _, ok := a.seen[r.BlockIDs[lead]]; !ok {
			break
		}
		lead++
	}
	b.LeadingSeen += int64(lead)
	b.HitTokens += int64(min(lead*blockSize(r), r.InputTokens))
	for _, id := range r.BlockIDs {
		if _, ok := a.seen[id]; ok {
			b.Seen++
		}
	}
	for _, id := range r.BlockIDs {
		a.seen[id] = struct{}{}
	}
	a.addSessionBlocks(r, sess)
}

func (a *statsAcc) finish() TraceStats {
	st := a.st
	st.Span = a.last - a.first
	if st.Span > 0 {
		st.Rate = float64(st.Requests) / st.Span.Seconds()
	}
	st.Input, st.Output = lengthStats(a.in), lengthStats(a.out)
	st.Users, st.Sessions = len(a.users), len(a.sessions)
	for _, s := range a.sessions {
		st.MaxTurns = max(st.MaxTurns, s.turns)
	}
	if b := a.blocks; b.Requests > 0 {
		b.SeenShare = ratio(b.Seen, b.Blocks)
		b.LeadingShare = ratio(b.LeadingSeen, b.Seen)
		b.HitRate = ratio(b.HitTokens, b.InputTokens)
		b.SessionHitRate = ratio(b.SessionHitTokens, b.InputTokens)
		st.Blocks = &b
	}
	a.finishSessions(&st)
	return st
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// lengthStats sorts xs and summarises it.
func lengthStats(xs []int32) LengthStats {
	if len(xs) == 0 {
		return LengthStats{}
	}
	slices.Sort(xs)
	var sum int64
	for _, x := range xs {
		sum += int64(x)
	}
	rank := func(p float64) int {
		i := int(math.Ceil(p*float64(len(xs)))) - 1
		return int(xs[min(max(i, 0), len(xs)-1)])
	}
	return LengthStats{Mean: float64(sum) / float64(len(xs)), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99),
		Max: int(xs[len(xs)-1]), Total: sum}
}
