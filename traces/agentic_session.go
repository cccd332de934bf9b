package traces

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// agenticSession turns one session file into Requests, in the order
// their predecessors come first:
//
//   - each request entry becomes a Request of Session = the file's id
//     (a sub-agent's: id + "/" + agent_id, nested sub-agents adding
//     their own), ID = session + "#" + turn, Turn = its index among the
//     session's requests, User = the file's id (parent and sub-agents
//     share it); Arrival = start + the entry's time from the session's
//     start (a sub-agent's times count from its entry's t);
//   - InputTokens = in, OutputTokens = out, BlockIDs = hash_ids of the
//     file's block_size (64 when unstated); model and output_types go to
//     Recorded, never sent;
//   - hash ids are namespaced: with hash_id_scope local (the default)
//     an id stands for a block of this file only (the session and its
//     sub-agents), so equal numbers in two files are different blocks;
//     with global, equal ids are the same block in every global file;
//   - After: a sub-agent's first request waits for the parent's latest
//     request before the sub-agent's entry; a parent request that joins
//     sub-agents (see AgenticOptions.Join) waits for its own previous
//     request and for the last request of each sub-agent it joins;
//     other requests wait for their session's previous one (After left
//     empty);
//   - Think: the request's time minus the latest recorded end of its
//     predecessors (a request's end is its time plus api_time, or out ×
//     TokenTime when api_time is unrecorded), at least 0. A session's
//     first request has no predecessor and no Think.
//
// The file's own think_time field is not read: it is rounded to whole
// seconds, and after a request without api_time it counts from an
// earlier request.
type agenticSession struct {
	opt    AgenticOptions // resolved
	bs     int
	ns     uint64 // block id namespace
	root   string
	start  float64 // seconds from the trace start
	agents map[string]bool
	turns  map[string]int // Requests built per session
	out    []Request
}

// agenticNode is a Request built, as its successors need it.
type agenticNode struct {
	id     string
	at     float64 // its time, seconds from the session's start
	finish float64 // its recorded end, same clock
}

// agenticSub is a sub-agent not yet joined by its parent.
type agenticSub struct {
	last *agenticNode
	end  float64 // the sub-agent's recorded end
}

// buildAgentic returns the Requests of session file f, starting start
// seconds into the trace; bs is the block size when f states none.
func buildAgentic(f *agenticFile, start float64, bs int, opt AgenticOptions) ([]Request, error) {
	if f.BlockSize != nil {
		bs = *f.BlockSize
	}
	s := &agenticSession{opt: opt, bs: bs, root: f.ID, start: start, agents: map[string]bool{},
		turns: map[string]int{}}
	if f.Scope == agenticScopeGlobal {
		s.ns = xxhash.Sum64String("agentic-global")
	} else {
		s.ns = xxhash.Sum64String("agentic-local\x00" + f.ID)
	}
	if _, err := s.walk(f.Requests, f.ID, "", 0, nil); err != nil {
		return nil, err
	}
	// Predecessors were built first, so a stable sort keeps them first
	// among equal arrivals.
	slices.SortStableFunc(s.out, func(a, b Request) int { return cmp.Compare(a.Arrival, b.Arrival) })
	return s.out, nil
}

// fail builds the error of one entry's field.
func (s *agenticSession) fail(session, entry, field, format string, a ...any) error {
	return &ParseError{Entry: "session " + session + " entry " + entry, Field: field, Err: fmt.Errorf(format, a...)}
}

// walk builds the requests of one session (or sub-agent) whose times
// count from base; spawn is the request its first one waits for (nil
// for a top-level session). It returns the session's last request.
func (s *agenticSession) walk(list []agenticEntry, session, path string, base float64, spawn *agenticNode) (*agenticNode, error) {
	var prev *agenticNode
	var pending []agenticSub
	shift, last := 0.0, 0.0
	for i := range list {
		e, at := &list[i], fmt.Sprintf("%srequests[%d]", path, i)
		t, err := seconds(e.T, true)
		if err != nil {
			return nil, s.fail(session, at, "t", "%v", err)
		}
		if t < last {
			return nil, s.fail(session, at, "t", "%g s is before the previous entry's %g s: times go backwards within a session", t, last)
		}
		last = t
		if e.Type == "subagent" {
			sub, err := s.subagent(e, session, at, base+t+shift, latest(prev, spawn))
			if err != nil {
				return nil, err
			}
			pending = append(pending, sub)
			continue
		}
		node, err := s.request(e, session, at, base+t+shift, prev, spawn, &pending)
		if err != nil {
			return nil, err
		}
		shift += node.at - (base + t + shift)
		prev = node
	}
	return prev, nil
}

// latest returns prev when set, else spawn.
func latest(prev, spawn *agenticNode) *agenticNode {
	if prev != nil {
		return prev
	}
	return spawn
}

// subagent builds a sub-agent entry starting at start.
func (s *agenticSession) subagent(e *agenticEntry, parent, at string, start float64, spawn *agenticNode) (agenticSub, error) {
	dur, err := seconds(e.DurationMS, false)
	switch {
	case e.AgentID == "":
		return agenticSub{}, s.fail(parent, at, "agent_id", "missing: a sub-agent needs an id")
	case s.agents[e.AgentID]:
		return agenticSub{}, s.fail(parent, at, "agent_id", "%q: a second sub-agent of this id", e.AgentID)
	case err != nil:
		return agenticSub{}, s.fail(parent, at, "duration_ms", "%v ms: want 0 to %g ms", *e.DurationMS, float64(maxAgenticSeconds))
	}
	s.agents[e.AgentID] = true
	last, err := s.walk(e.Requests, parent+"/"+e.AgentID, at+".", start, spawn)
	if err != nil {
		return agenticSub{}, err
	}
	if last == nil {
		return agenticSub{}, s.fail(parent, at, "requests", "sub-agent %s has no requests", e.AgentID)
	}
	return agenticSub{last: last, end: math.Max(start+dur/1000, last.finish)}, nil
}

// request builds one request entry sent at abs (seconds from the
// session's start), joining the pending sub-agents its rule says it
// waits for.
func (s *agenticSession) request(e *agenticEntry, session, at string, abs float64, prev, spawn *agenticNode, pending *[]agenticSub) (*agenticNode, error) {
	r, err := s.decode(e, session, at)
	if err != nil {
		return nil, err
	}
	var preds []*agenticNode
	if p := latest(prev, spawn); p != nil {
		preds = append(preds, p)
	}
	own := math.Inf(-1) // the end of its own predecessor
	if len(preds) > 0 {
		own = preds[0].finish
	}
	subs := math.Inf(-1) // the latest end of the sub-agents it joins
	for _, sub := range s.join(pending, abs) {
		preds = append(preds, sub.last)
		subs = math.Max(subs, sub.last.finish)
	}
	if subs > abs { // join rule next: sent, in the recording, before they ended, so at once after them
		abs = subs
	}
	if len(preds) > 0 {
		r.Think, r.ThinkKnown = secondsDur(math.Max(abs-math.Max(own, subs), 0)), true
		if prev == nil || len(preds) > 1 {
			for _, p := range preds {
				r.After = append(r.After, p.id)
			}
		}
	}
	r.Turn = s.turns[session]
	s.turns[session]++
	r.ID = session + "#" + strconv.Itoa(r.Turn)
	r.Arrival = secondsDur(s.start + abs)
	resp := float64(*e.Out) * s.opt.TokenTime.Seconds()
	if e.APITime != nil {
		resp = *e.APITime
	}
	s.out = append(s.out, r)
	return &agenticNode{id: r.ID, at: abs, finish: abs + resp}, nil
}

// join removes from pending and returns the sub-agents a parent request
// sent at abs waits for.
func (s *agenticSession) join(pending *[]agenticSub, abs float64) []agenticSub {
	if s.opt.Join == AgenticJoinNext {
		out := *pending
		*pending = nil
		return out
	}
	var out, keep []agenticSub
	for _, sub := range *pending {
		if sub.end <= abs {
			out = append(out, sub)
		} else {
			keep = append(keep, sub)
		}
	}
	*pending = keep
	return out
}

// decode checks one request entry and returns its Request's lengths,
// blocks and recorded fields.
func (s *agenticSession) decode(e *agenticEntry, session, at string) (Request, error) {
	if e.Type != "" && e.Type != "s" && e.Type != "n" {
		return Request{}, s.fail(session, at, "type", "%q: want s, n or subagent", e.Type)
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"in", e.In}, {"out", e.Out}} {
		if f.v == nil {
			return Request{}, s.fail(session, at, f.name, "missing")
		}
		if err := tokenCount(f.name, *f.v); err != nil {
			return Request{}, s.fail(session, at, f.name, "%v", err.(*ParseError).Err)
		}
	}
	if _, err := seconds(e.APITime, false); err != nil {
		return Request{}, s.fail(session, at, "api_time", "%v", err)
	}
	in := *e.In
	if !hashCountOK(len(e.HashIDs), in, s.bs) {
		want := strconv.Itoa(in / s.bs)
		if in%s.bs != 0 {
			want += " or " + strconv.Itoa(in/s.bs+1)
		}
		return Request{}, s.fail(session, at, "hash_ids", "%d ids for in = %d tokens: want %s (one per %d-token block, the last partial block with or without one)",
			len(e.HashIDs), in, want, s.bs)
	}
	r := Request{Session: session, User: s.root, BlockSize: s.bs}
	r.BlockIDs, r.InputTokens, r.OutputTokens = s.shape(e.HashIDs, in, *e.Out)
	if e.Model != "" || len(e.OutputTypes) > 0 {
		r.Recorded = &Recorded{Model: e.Model, OutputTypes: e.OutputTypes}
	}
	return r, nil
}

// shape namespaces the kept hash ids and scales and caps the lengths
// (AgenticOptions.Scale and MaxInput).
func (s *agenticSession) shape(ids []uint64, in, out int) ([]uint64, int, int) {
	f := s.opt.Scale
	kept := make([]uint64, 0, int(float64(len(ids))*f)+1)
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], s.ns)
	for i, id := range ids {
		if f < 1 && math.Floor(float64(i+1)*f) <= math.Floor(float64(i)*f) {
			continue
		}
		binary.LittleEndian.PutUint64(buf[8:], id)
		kept = append(kept, xxhash.Sum64(buf[:]))
	}
	in, out = scaleLen(in, f), scaleLen(out, f)
	if m := s.opt.MaxInput; m > 0 && in > m {
		in = m
		kept = kept[:min(len(kept), (m+s.bs-1)/s.bs)]
	}
	if len(kept) == 0 {
		kept = nil
	}
	return kept, in, out
}

// scaleLen multiplies a length by f, keeping a non-zero length at least 1.
func scaleLen(n int, f float64) int {
	if n == 0 || f == 1 {
		return n
	}
	return max(1, int(math.Round(float64(n)*f)))
}
