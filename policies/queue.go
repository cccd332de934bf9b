package policies

import (
	"time"

	"github.com/tracebench/tracebench/traces"
)

// Release is one Request a Queue lets go.
type Release struct {
	// Req is the released Request (the pointer handed to Arrive).
	Req *traces.Request
	// Backend is the Backend the Queue chose, or -1 to let the Router pick.
	Backend int
}

// Queue holds Requests on the client and releases them when a Backend has
// room. Requests it rejects are reported by Arrive's error and never
// released.
type Queue interface {
	// Name returns the registry name (kebab-case).
	Name() string
	// Arrive adds req at time now. A non-nil error rejects it (e.g. rpm).
	Arrive(now time.Duration, req *traces.Request) error
	// Release returns the Requests to dispatch now, given the Backends'
	// state and the per-backend capacity limits.
	Release(now time.Duration, st State, c Capacity) []Release
	// Len is the number of Requests held.
	Len() int
}

// Capacity bounds what a Queue may put on one Backend. Zero fields are
// unlimited.
type Capacity struct {
	// Requests is the per-backend in-flight request limit.
	Requests int
	// Tokens is the per-backend in-flight token budget (prompt + expected
	// output tokens).
	Tokens int
}

// Room reports whether b can take one more Request of tokens tokens.
func (c Capacity) Room(b Backend, tokens int) bool {
	if c.Requests > 0 && b.InFlight >= c.Requests {
		return false
	}
	if c.Tokens > 0 && b.InFlight > 0 && b.InFlightTokens+tokens > c.Tokens {
		return false
	}
	return true
}

// AnyRoom reports whether some Backend in st can take a Request of tokens.
func (c Capacity) AnyRoom(st State, tokens int) bool {
	for _, b := range st.Backends {
		if c.Room(b, tokens) {
			return true
		}
	}
	return false
}
