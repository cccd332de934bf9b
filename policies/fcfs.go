package policies

import (
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterQueue(Spec{Name: "fcfs", Doc: "release in arrival order as soon as a backend has room (the Router alone decides)", Source: "baseline"},
		func(_ Params, _ *rand.Rand) (Queue, error) { return &fcfs{}, nil })
}

// fcfs releases Requests in arrival order while some Backend has room.
type fcfs struct{ q []*traces.Request }

func (f *fcfs) Name() string { return "fcfs" }

func (f *fcfs) Len() int { return len(f.q) }

func (f *fcfs) Arrive(_ time.Duration, req *traces.Request) error {
	f.q = append(f.q, req)
	return nil
}

// Release lets the head go while any backend has room; the replay
// re-snapshots between releases, so one call releases at most as many
// Requests as there is room for across backends when counted greedily.
func (f *fcfs) Release(_ time.Duration, st State, c Capacity) []Release {
	var out []Release
	room := totalRoom(st, c)
	for len(f.q) > 0 && room != 0 {
		out = append(out, Release{Req: f.q[0], Backend: -1})
		f.q[0] = nil
		f.q = f.q[1:]
		room--
	}
	return out
}

// totalRoom returns how many more Requests the Backends can take under c
// by request count, or -1 when unlimited.
func totalRoom(st State, c Capacity) int {
	if c.Requests == 0 && c.Tokens == 0 {
		return -1
	}
	n := 0
	for _, b := range st.Backends {
		if c.Room(b, 0) {
			if c.Requests == 0 {
				return -1
			}
			n += c.Requests - b.InFlight
		}
	}
	return n
}
