package policies

import (
	"fmt"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// Release lets go heads of the smallest-counter backlogged users while the
// room budget allows (see roomBudget); the Router picks the Backends.
func (v *vtcQueue) Release(_ time.Duration, st State, c Capacity) []Release {
	var out []Release
	rb := newRoomBudget(st, c)
	if v.variant == vtcMaxFair {
		v.maxFairLift()
	}
	for len(v.active) > 0 {
		i := v.next()
		u := v.active[i]
		if !rb.fits(u.q.peek()) {
			break
		}
		rb.take()
		req := u.q.pop()
		v.held--
		cnt := &vtcCount{user: u}
		v.chargeRelease(req, cnt)
		v.counted[req] = cnt
		if v.variant == vtcMaxFair {
			v.flight = append(v.flight, req)
		}
		if u.q.len() == 0 {
			v.active = append(v.active[:i], v.active[i+1:]...)
			v.lastLeft = u
		}
		out = append(out, Release{Req: req, Backend: -1})
	}
	if len(out) > 0 {
		v.events.touch()
	}
	return out
}

// next returns the index in active of the user to serve: smallest counter,
// then earliest head arrival, then name.
func (v *vtcQueue) next() int {
	best := 0
	for i, u := range v.active[1:] {
		b := v.active[best]
		hu, hb := u.q.peek().Arrival, b.q.peek().Arrival
		if u.counter < b.counter || (u.counter == b.counter && (hu < hb || (hu == hb && u.name < b.name))) {
			best = i + 1
		}
	}
	return best
}

// Tokens implements TokenFeedback: n more output tokens of req are
// charged w_out / weight each as the variant says (vtc: every one).
func (v *vtcQueue) Tokens(_ time.Duration, req *traces.Request, n int) {
	cnt, ok := v.counted[req]
	if !ok || n <= 0 {
		return
	}
	cnt.tokens += n
	v.chargeOutput(cnt, v.streamTarget(cnt))
}

// Done implements Feedback: the output charge is settled against the
// tokens the server reported (vtc: tokens beyond those streamed are
// charged), and the Request is forgotten.
func (v *vtcQueue) Done(_ time.Duration, req *traces.Request, out Outcome) {
	cnt, ok := v.counted[req]
	if !ok {
		return
	}
	delete(v.counted, req)
	if v.variant == vtcMaxFair {
		v.leaveFlight(req)
	}
	v.chargeOutput(cnt, v.finalTarget(cnt, max(out.OutputTokens, cnt.tokens)))
}

// StateEvents implements StateReporter: one event with Source "vtc" (or
// "lcf") and, for every user seen, "counter:<user>" (weighted tokens) and
// "queued:<user>" (waiting Requests). Requests without a user count as
// the user "".
func (v *vtcQueue) StateEvents(now time.Duration) []StateEvent {
	if !v.events.due(now) {
		return nil
	}
	vals := make(map[string]float64, 2*len(v.users))
	for name, u := range v.users {
		vals[fmt.Sprintf("counter:%s", name)] = u.counter
		vals[fmt.Sprintf("queued:%s", name)] = float64(u.q.len())
	}
	return []StateEvent{{Source: v.name, Values: vals}}
}
