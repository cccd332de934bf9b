package traces

import (
	"math"
	"slices"
	"time"
)

// DurationStats summarises durations over a trace, in seconds.
type DurationStats struct {
	// Count is the number of durations.
	Count int `json:"count"`
	// Mean is their mean; P50, P90 and P99 nearest-rank percentiles;
	// Max the largest.
	Mean float64 `json:"mean_s"`
	P50  float64 `json:"p50_s"`
	P90  float64 `json:"p90_s"`
	P99  float64 `json:"p99_s"`
	Max  float64 `json:"max_s"`
}

// RecordedStats summarises Request.Recorded over a trace.
type RecordedStats struct {
	// Requests is the number of Requests with a Recorded.
	Requests int `json:"requests"`
	// Models counts those Requests per original model ("" not counted).
	Models map[string]int `json:"models,omitempty"`
	// OutputTypes counts those Requests whose response held each kind of
	// content (a Request with several kinds counts in each).
	OutputTypes map[string]int `json:"output_types,omitempty"`
	// NoOutputTypes counts those Requests that record no kind.
	NoOutputTypes int `json:"no_output_types"`
}

// sessionAcc is one session's running state in Stats.
type sessionAcc struct {
	idx    int    // order of first appearance
	turns  int    // Requests so far
	lastID string // the ID of its latest Request
}

// sessionBlock is a block id seen in one session.
type sessionBlock struct {
	session int
	id      uint64
}

// sessionStatsAcc accumulates the session structure: sub-sessions, joins,
// think times, reuse within sessions and the recorded fields.
type sessionStatsAcc struct {
	thinks     []time.Duration
	sessBlocks map[sessionBlock]struct{}
	rec        RecordedStats
}

// addSession counts r in its session and returns the session's index (-1
// when r has none).
func (a *statsAcc) addSession(r *Request) int {
	if r.ThinkKnown {
		a.thinks = append(a.thinks, r.Think)
	}
	if r.Session == "" {
		return -1
	}
	s, ok := a.sessions[r.Session]
	switch {
	case !ok:
		s = &sessionAcc{idx: len(a.sessions)}
		a.sessions[r.Session] = s
		if len(r.After) > 0 {
			a.st.SubSessions++
		}
	case len(r.After) > 1 || len(r.After) == 1 && r.After[0] != s.lastID:
		a.st.Joins++
	}
	s.turns++
	s.lastID = r.ID
	return s.idx
}

// addRecorded counts r's recorded fields.
func (a *statsAcc) addRecorded(r *Request) {
	rec := r.Recorded
	if rec == nil {
		return
	}
	c := &a.rec
	c.Requests++
	if rec.Model != "" {
		if c.Models == nil {
			c.Models = map[string]int{}
		}
		c.Models[rec.Model]++
	}
	if len(rec.OutputTypes) == 0 {
		c.NoOutputTypes++
		return
	}
	if c.OutputTypes == nil {
		c.OutputTypes = map[string]int{}
	}
	for i, t := range rec.OutputTypes {
		if !slices.Contains(rec.OutputTypes[:i], t) {
			c.OutputTypes[t]++
		}
	}
}

// addSessionBlocks counts the blocks of r (of session sess) its session
// sent before, then marks them seen in it.
func (a *statsAcc) addSessionBlocks(r *Request, sess int) {
	if sess < 0 {
		return
	}
	if a.sessBlocks == nil {
		a.sessBlocks = map[sessionBlock]struct{}{}
	}
	b := &a.blocks
	lead := true
	for i, id := range r.BlockIDs {
		_, ok := a.sessBlocks[sessionBlock{sess, id}]
		if ok {
			b.SessionSeen++
		}
		if lead && !ok {
			b.SessionHitTokens += int64(min(i*blockSize(r), r.InputTokens))
			lead = false
		}
	}
	if lead {
		b.SessionHitTokens += int64(min(len(r.BlockIDs)*blockSize(r), r.InputTokens))
	}
	for _, id := range r.BlockIDs {
		a.sessBlocks[sessionBlock{sess, id}] = struct{}{}
	}
}

// finishSessions fills the think and recorded summaries of st.
func (a *statsAcc) finishSessions(st *TraceStats) {
	if len(a.thinks) > 0 {
		st.Think = durationStats(a.thinks)
	}
	if a.rec.Requests > 0 {
		rec := a.rec
		st.Recorded = &rec
	}
}

// durationStats sorts ds and summarises it.
func durationStats(ds []time.Duration) *DurationStats {
	slices.Sort(ds)
	sum := 0.0
	for _, d := range ds {
		sum += d.Seconds()
	}
	rank := func(p float64) float64 { return ds[nearestRank(p, len(ds))].Seconds() }
	return &DurationStats{Count: len(ds), Mean: sum / float64(len(ds)),
		P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Max: ds[len(ds)-1].Seconds()}
}

// nearestRank is the 0-based index of the p-quantile of n sorted values.
func nearestRank(p float64, n int) int {
	return min(max(int(math.Ceil(p*float64(n)))-1, 0), n-1)
}
