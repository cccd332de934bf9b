package replay

import (
	"errors"
	"io"
	"time"

	"github.com/tracebench/tracebench/internal/minheap"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Gate stands between the Source and the Run's loop and paces session
// turns. Open-loop it passes the Source through. Closed-loop it holds
// each Request until the Requests it follows (Request.After, else the
// previous turn of its Session) have finished, then releases it a think
// time later with Arrival set to that time; Requests that follow nothing
// start at their trace time, or, with Users, as a user becomes free.
// It is used from the loop's goroutine only.
type Gate struct {
	src traces.Source
	o   Sessions
	// look is the Source's next Request (nil after EOF or an error).
	look *traces.Request
	err  error
	// now is the Run clock as last told by the loop.
	now   time.Duration
	ready minheap.Heap[readyItem]
	// waiting holds the unreleased Requests by the ID of a predecessor
	// that has not finished.
	waiting map[string][]*node
	// sent and done record released and finished Requests by ID.
	sent map[string]*sentTurn
	done map[string]doneTurn
	// doneOrder lists done's IDs in finishing order, for pruning.
	doneOrder []string
	// held are the IDs of Requests read and not yet released.
	held     map[string]bool
	sessions map[string]*sessionState
	users    userSlots
	stats    SessionStats
}

// node is a Request read from the Source and not yet released.
type node struct {
	req   traces.Request
	preds []string
	// waits counts predecessors not finished; readyAt is when the last
	// finished one did and predTrace the latest predecessor trace time.
	waits     int
	readyAt   time.Duration
	predTrace time.Duration
	// skip marks a Request of a session ended by a failure.
	skip bool
}

// sentTurn is a released Request, until it finishes.
type sentTurn struct {
	trace   time.Duration // its trace Arrival
	session string
	feed    *turnRecord
}

// doneTurn is a finished Request, kept while a successor may still be read.
type doneTurn struct {
	at, trace time.Duration
	failed    bool
	session   string
}

// sessionState is what the gate knows of one session.
type sessionState struct {
	last      string        // ID of the last Request read
	lastTrace time.Duration // its trace Arrival
	open      int           // Requests read and not finished
	root      bool          // started by a Request that follows nothing
	ended     bool          // a failed turn ended it (FailEnd)
	lastTurn  *turnRecord   // the last finished turn, for feeding back
}

// NewGate wraps src; o must be valid.
func NewGate(src traces.Source, o Sessions) *Gate {
	g := &Gate{src: src, o: o, waiting: map[string][]*node{}, sent: map[string]*sentTurn{},
		done: map[string]doneTurn{}, sessions: map[string]*sessionState{}, held: map[string]bool{}}
	g.users = newUserSlots(o)
	g.read()
	return g
}

// read advances look.
func (g *Gate) read() {
	r, err := g.src.Next()
	if err != nil {
		g.look = nil
		if !errors.Is(err, io.EOF) {
			g.err = err
		}
		return
	}
	g.look = &r
}

// Err is the Source's error (nil at a clean end).
func (g *Gate) Err() error { return g.err }

// Peek returns the next Request to arrive, with its Arrival set, or nil
// when none is known at now (the loop then waits for a Result).
func (g *Gate) Peek(now time.Duration) *traces.Request {
	g.now = max(g.now, now)
	if !g.o.closed() {
		return g.look
	}
	g.fill()
	next, _ := g.ready.Peek() // the zero readyItem's req is nil
	return next.req
}

// Pop removes the Request Peek returned.
func (g *Gate) Pop() {
	if !g.o.closed() {
		g.read()
		return
	}
	g.ready.Pop()
}

// Pending reports Requests read but not yet released: the loop must not
// end while there are some.
func (g *Gate) Pending() bool {
	return g.o.closed() && len(g.held) > 0
}

// fill reads the Source until the next start is known: in trace time
// every Request due no later than the earliest ready one; with Users as
// many session starts as there are free users.
func (g *Gate) fill() {
	for g.look != nil {
		if g.o.Users > 0 {
			if g.users.queued() >= g.users.free() {
				break
			}
		} else if next, ok := g.ready.Peek(); ok && g.look.Arrival > next.req.Arrival {
			break
		}
		g.ingest(*g.look)
		g.read()
	}
	g.startUsers()
}

// readUntil reads every Request of trace time up to t.
func (g *Gate) readUntil(t time.Duration) {
	for g.look != nil && g.look.Arrival <= t {
		g.ingest(*g.look)
		g.read()
	}
}

// sessionKey is the session a Request belongs to: its Session, else its
// own ID (a one-request session).
func sessionKey(r *traces.Request) string {
	if r.Session != "" {
		return r.Session
	}
	return "\x00" + r.ID
}

// ingest places one Request read from the Source. A Request of no
// session that follows nothing is due at its trace time and followed by
// nothing (an After naming it is taken as finished), so it is not tracked.
func (g *Gate) ingest(r traces.Request) {
	if r.Session == "" && len(r.After) == 0 && g.o.Users == 0 {
		if g.o.StopAt > 0 && r.Arrival >= g.o.StopAt {
			g.look = nil
			g.stats.PastStop++
			return
		}
		g.stats.Released++
		g.ready.Push(readyItem{req: &r, seq: g.stats.Released})
		return
	}
	key := sessionKey(&r)
	st := g.sessions[key]
	if st == nil {
		st = &sessionState{}
		g.sessions[key] = st
	}
	preds := r.After
	if len(preds) == 0 && st.last != "" {
		preds = []string{st.last}
	}
	st.last, st.lastTrace = r.ID, r.Arrival
	st.open++
	n := &node{req: r, preds: preds, readyAt: g.now, skip: st.ended}
	g.held[r.ID] = true
	if len(preds) == 0 {
		st.root = true
		g.start(n)
		return
	}
	for _, p := range preds {
		g.link(n, p)
	}
	if n.waits == 0 {
		g.release(n)
	}
}

// link makes n wait for predecessor p, or accounts p when it is done or
// unknown (never read, or finished longer than the horizon ago: it is
// taken as finished now).
func (g *Gate) link(n *node, p string) {
	if d, ok := g.done[p]; ok {
		g.account(n, d)
		return
	}
	if _, ok := g.sent[p]; ok || g.held[p] {
		g.waiting[p] = append(g.waiting[p], n)
		n.waits++
		return
	}
	n.predTrace = max(n.predTrace, n.req.Arrival)
}

// account applies a finished predecessor to n.
func (g *Gate) account(n *node, d doneTurn) {
	n.readyAt = max(n.readyAt, d.at)
	n.predTrace = max(n.predTrace, d.trace)
	if d.failed && g.o.OnFailure == FailEnd && d.session == sessionKey(&n.req) {
		n.skip = true
	}
}

// start places a Request that follows nothing: due at its trace time, or
// queued for a free user.
func (g *Gate) start(n *node) {
	if g.o.Users > 0 {
		g.users.enqueue(n)
		return
	}
	g.push(n.req, &n.req, n.req.Arrival)
}

// push makes r ready at the given time; orig is r as the trace gave it.
func (g *Gate) push(r traces.Request, orig *traces.Request, at time.Duration) {
	delete(g.held, r.ID)
	key := sessionKey(&r)
	if g.o.StopAt > 0 && at >= g.o.StopAt {
		// Past the run's end: nothing more is read or released.
		g.look = nil
		g.stats.PastStop++
		g.finish(r.ID, key, orig.Arrival, at, true)
		return
	}
	var feed *turnRecord
	if !g.o.NoFeedBack {
		feed = newTurnRecord(orig, &r)
	}
	g.sent[r.ID] = &sentTurn{trace: orig.Arrival, session: key, feed: feed}
	r.Arrival = at
	g.stats.Released++
	g.ready.Push(readyItem{req: &r, seq: g.stats.Released})
}

// release makes n ready a think time after its last predecessor, its
// prompt carrying the answers fed back; a skipped Request finishes at
// once without being sent.
func (g *Gate) release(n *node) {
	if n.skip {
		g.stats.Skipped++
		delete(g.held, n.req.ID)
		g.finish(n.req.ID, sessionKey(&n.req), n.req.Arrival, n.readyAt, true)
		return
	}
	r := n.req
	think := r.Think
	if !r.ThinkKnown {
		think = max(r.Arrival-n.predTrace, 0)
	}
	r.Think, r.ThinkKnown = think, true
	if st := g.sessions[sessionKey(&r)]; st != nil && !g.o.NoFeedBack {
		feedBack(&r, st.lastTurn, n.preds)
	}
	g.push(r, &n.req, n.readyAt+think)
}

// AnswerFor returns storage for the answer to req when a later turn will
// carry it (nil otherwise: open-loop, feeding back off, or a Request no
// turn follows in its session).
func (g *Gate) AnswerFor(req *traces.Request) *results.Answer {
	if !g.o.closed() || g.o.NoFeedBack || req.Session == "" {
		return nil
	}
	return &results.Answer{}
}
