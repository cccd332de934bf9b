package replay

// A finished Request releases what waited for it (Done, finish), and the
// released ones wait in time order (readyItem.Before).

import (
	"cmp"
	"time"

	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Done tells the gate that the Request of res finished (any outcome).
// ans is the answer the server gave (nil when none was kept).
func (g *Gate) Done(res *results.Result, ans *results.Answer) {
	if !g.o.closed() {
		return
	}
	g.now = max(g.now, res.Done)
	st, ok := g.sent[res.ID]
	if !ok {
		return
	}
	delete(g.sent, res.ID)
	if st.feed != nil {
		st.feed.finish(res, ans)
		if ss := g.sessions[st.session]; ss != nil {
			ss.lastTurn = st.feed
		}
	}
	if !res.OK() {
		g.stats.FailedTurns++
		if ss := g.sessions[st.session]; ss != nil && g.o.OnFailure == FailEnd {
			ss.ended = true
		}
	}
	g.finish(res.ID, st.session, st.trace, res.Done, !res.OK())
}

// finish records a finished (or skipped) Request and releases what
// waited for it. With nothing waiting it reads a horizon ahead for the
// session's next turn, and a session left with nothing open has ended.
func (g *Gate) finish(id, session string, trace, at time.Duration, failed bool) {
	d := doneTurn{at: at, trace: trace, failed: failed, session: session}
	g.done[id] = d
	g.doneOrder = append(g.doneOrder, id)
	ws := g.waiting[id]
	delete(g.waiting, id)
	for _, n := range ws {
		g.account(n, d)
		if n.waits--; n.waits == 0 {
			g.release(n)
		}
	}
	ss := g.sessions[session]
	if ss == nil {
		return
	}
	ss.open--
	if ss.open == 0 && session[0] != 0 {
		g.readUntil(ss.lastTrace + g.o.horizon())
	}
	if ss.open == 0 {
		g.endSession(session, ss, at)
	}
	g.prune()
}

// endSession forgets an ended session and frees its user.
func (g *Gate) endSession(key string, ss *sessionState, at time.Duration) {
	delete(g.sessions, key)
	g.stats.Sessions++
	if ss.ended {
		g.stats.EndedByFailure++
	}
	if ss.root {
		g.users.free1(at)
		g.startUsers()
	}
}

// prune drops finished Requests that no unread Request can follow any
// more (their session was forgotten and the Source is past the horizon).
func (g *Gate) prune() {
	if len(g.doneOrder) < 1024 {
		return
	}
	keep := g.doneOrder[:0]
	for _, id := range g.doneOrder {
		d := g.done[id]
		_, live := g.sessions[d.session]
		if !live && (g.look == nil || g.look.Arrival > d.trace+g.o.horizon()) {
			delete(g.done, id)
			continue
		}
		keep = append(keep, id)
	}
	g.doneOrder = keep
}

// readyItem is a released Request; seq breaks ties in release order.
type readyItem struct {
	req *traces.Request
	seq int
}

// Before orders released Requests by Arrival, then release order.
func (a readyItem) Before(b readyItem) bool {
	return cmp.Or(cmp.Compare(a.req.Arrival, b.req.Arrival), cmp.Compare(a.seq, b.seq)) < 0
}
