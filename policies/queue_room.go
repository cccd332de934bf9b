package policies

import "github.com/tracebench/tracebench/traces"

// queueTokens is a Request's footprint against Capacity.Tokens: prompt +
// output tokens, the same measure Backend.InFlightTokens sums.
func queueTokens(r *traces.Request) int { return r.InputTokens + r.OutputTokens }

// roomBudget counts how many Requests a Queue may release in one Release
// call when the Router picks the Backend (Release.Backend = -1).
//
// The request limit is placement-invariant: the Router only sees Backends
// with room, so the free slots summed over Backends is exactly how many
// Requests fit, wherever they go. A token budget is not: which Backend a
// Request lands on changes what fits next. With a token budget the budget
// therefore lets one Request go per call (the replay re-snapshots and calls
// Release again after every dispatch), and only when some Backend has room
// for it.
type roomBudget struct {
	st    State
	c     Capacity
	slots int // free request slots; -1 when unlimited
	taken int
}

// newRoomBudget sizes the budget from the snapshot st under c.
func newRoomBudget(st State, c Capacity) *roomBudget {
	rb := &roomBudget{st: st, c: c, slots: -1}
	if c.Requests > 0 {
		rb.slots = 0
		for _, b := range st.Backends {
			rb.slots += max(0, c.Requests-b.InFlight)
		}
	}
	return rb
}

// fits reports whether r may be released now.
func (rb *roomBudget) fits(r *traces.Request) bool {
	if rb.slots == 0 || len(rb.st.Backends) == 0 {
		return false
	}
	if rb.c.Tokens > 0 {
		return rb.taken == 0 && rb.c.AnyRoom(rb.st, queueTokens(r))
	}
	return true
}

// take books one released Request.
func (rb *roomBudget) take() {
	rb.taken++
	if rb.slots > 0 {
		rb.slots--
	}
}
