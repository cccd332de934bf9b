package metrics

import (
	"fmt"
	"strings"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// FleetChange is one Backend joining or leaving a live fleet mid-run
// (re-resolved dns+http:// targets).
type FleetChange struct {
	// At is the offset from the start of the Run.
	At time.Duration `json:"at"`
	// Backend is the Backend's Index; URL its base URL.
	Backend int    `json:"backend"`
	URL     string `json:"url"`
	// Joined is true for a join, false for a leave.
	Joined bool `json:"joined"`
}

// String reads "backend b2 (http://10.0.0.7:8000) joined at 12.3 s".
func (c FleetChange) String() string {
	what := "left"
	if c.Joined {
		what = "joined"
	}
	return fmt.Sprintf("backend b%d (%s) %s at %.1f s", c.Backend, c.URL, what, c.At.Seconds())
}

// addFleet records a fleet: event; it reports false for other sources.
// A Backend that joined is added to the rows (the header lists the
// fleet at the start only).
func (a *Accumulator) addFleet(e *results.Event) bool {
	url, ok := strings.CutPrefix(e.Source, replay.FleetEventPrefix)
	if !ok {
		return false
	}
	i := int(e.Values[replay.FleetBackend])
	if i < 0 || i >= maxUnlistedBackends {
		return true
	}
	c := FleetChange{At: e.At, Backend: i, URL: url, Joined: e.Values[replay.FleetJoined] == 1}
	a.fleet = append(a.fleet, c)
	if c.Joined {
		for len(a.joinedURLs) <= i {
			a.joinedURLs = append(a.joinedURLs, "")
		}
		a.joinedURLs[i] = url
	}
	return true
}

// backendLimit is one past the largest Backend Index a Result may name:
// the header's Backends and every one that joined.
func (a *Accumulator) backendLimit() int {
	limit := max(len(a.h.Backends), len(a.joinedURLs))
	if len(a.h.Backends) == 0 {
		limit = maxUnlistedBackends
	}
	return limit
}

// backendURL is Backend i's URL from the header or its join event.
func (a *Accumulator) backendURL(i int) string {
	if i < len(a.h.Backends) {
		return a.h.Backends[i]
	}
	if i < len(a.joinedURLs) {
		return a.joinedURLs[i]
	}
	return ""
}
