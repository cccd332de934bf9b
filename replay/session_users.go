package replay

import (
	"math/rand/v2"
	"time"
)

// userSlots are the users of a closed system (Sessions.Users): each runs
// one session at a time and starts the Source's next one as soon as its
// session ends.
type userSlots struct {
	// freeAt are the times users became free, earliest first; the first
	// Users entries are the ramp's start times.
	freeAt []time.Duration
	// queue are session starts read and not yet given to a user.
	queue []*node
	// initial counts the starts still to give the ramp's users.
	initial  int
	midStart bool
	rng      *rand.Rand
}

// newUserSlots spreads o.Users users over o.Ramp.
func newUserSlots(o Sessions) userSlots {
	u := userSlots{initial: o.Users, midStart: o.MidStart, rng: rand.New(rand.NewPCG(o.Seed, 0x75736572))}
	for i := range o.Users {
		u.freeAt = append(u.freeAt, time.Duration(int64(o.Ramp)*int64(i)/int64(o.Users)))
	}
	return u
}

func (u *userSlots) free() int       { return len(u.freeAt) }
func (u *userSlots) queued() int     { return len(u.queue) }
func (u *userSlots) enqueue(n *node) { u.queue = append(u.queue, n) }

// free1 frees one user at time at.
func (u *userSlots) free1(at time.Duration) { u.freeAt = append(u.freeAt, at) }

// startUsers gives queued session starts to free users (Users mode only).
func (g *Gate) startUsers() {
	u := &g.users
	if g.o.Users == 0 {
		return
	}
	for len(u.freeAt) > 0 && len(u.queue) > 0 {
		n, at := u.queue[0], u.freeAt[0]
		u.queue, u.freeAt = u.queue[1:], u.freeAt[1:]
		if u.initial > 0 {
			u.initial--
			if u.midStart {
				n = g.skipAhead(n, at)
			}
		}
		g.push(n.req, &n.req, at)
	}
}

// skipAhead starts a session at a turn drawn uniformly from its chain of
// turns (each following only the one before it) and returns that turn;
// the turns before it count as finished at at, unsent.
func (g *Gate) skipAhead(n *node, at time.Duration) *node {
	g.readUntil(n.req.Arrival + g.o.horizon())
	chain := []*node{n}
	for cur := n; ; {
		ws := g.waiting[cur.req.ID]
		if len(ws) != 1 || len(ws[0].preds) != 1 || sessionKey(&ws[0].req) != sessionKey(&n.req) {
			break
		}
		cur = ws[0]
		chain = append(chain, cur)
	}
	k := g.users.rng.IntN(len(chain))
	key := sessionKey(&n.req)
	for _, c := range chain[:k] {
		delete(g.waiting, c.req.ID)
		delete(g.held, c.req.ID)
		g.done[c.req.ID] = doneTurn{at: at, trace: c.req.Arrival, session: key}
		g.doneOrder = append(g.doneOrder, c.req.ID)
		if ss := g.sessions[key]; ss != nil {
			ss.open--
		}
		g.stats.MidStartSkipped++
	}
	s := chain[k]
	s.preds, s.waits = nil, 0
	return s
}
