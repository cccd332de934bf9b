package policies

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterQueue(Spec{Name: "rpm",
		Doc:    "per-user requests-per-minute limit over a sliding window; over-limit requests are rejected, the rest released first come, first served",
		Needs:  []string{"user", "in-flight"},
		Source: "request rate limits of hosted LLM APIs; the VTC paper's RPM baseline (Sheng et al., OSDI 2024)",
		Params: []ParamSpec{
			{Name: "rpm", Kind: kInt, Default: traces.ParamInt(60), Doc: "requests a user may send per window"},
			{Name: "window", Kind: kDuration, Default: spelled(traces.ParamDuration(time.Minute), "1m"), Doc: "sliding window length (a duration)"},
			{Name: "event_interval", Kind: kString, Default: traces.ParamString("1s"), Doc: "least run time between two rejection-count events, seconds or a duration (0: every change)"},
		}},
		func(p Params, _ *rand.Rand) (Queue, error) { return newRPM(p) })
}

// rpmQueue admits at most limit Requests per user in any window-long
// interval: a Request arriving at t is rejected when the user already had
// limit admitted Requests in (t − window, t]. Admitted Requests wait in
// one FIFO and are released like fcfs. Requests without a user share the
// user "".
type rpmQueue struct {
	limit    int
	window   time.Duration
	admitted map[string]*rpmUser
	q        fifo
	events   stateThrottle
}

// rpmUser holds one user's admission times within the window and totals.
type rpmUser struct {
	times              []time.Duration
	accepted, rejected int
}

// newRPM parses p.
func newRPM(p Params) (*rpmQueue, error) {
	limit, err := p.Int("rpm", 1, 1_000_000_000)
	if err != nil {
		return nil, err
	}
	window, err := p.Duration("window")
	if err != nil {
		return nil, err
	}
	every, err := qparams(p).seconds("event_interval", 0, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	return &rpmQueue{limit: limit, window: window, admitted: map[string]*rpmUser{},
		events: stateThrottle{interval: every}}, nil
}

func (r *rpmQueue) Name() string { return "rpm" }

func (r *rpmQueue) Len() int { return r.q.len() }

// Arrive admits req or rejects it when its user is at the limit.
func (r *rpmQueue) Arrive(now time.Duration, req *traces.Request) error {
	u, ok := r.admitted[req.User]
	if !ok {
		u = &rpmUser{}
		r.admitted[req.User] = u
	}
	drop := 0
	for drop < len(u.times) && u.times[drop] <= now-r.window {
		drop++
	}
	u.times = append(u.times[:0], u.times[drop:]...)
	r.events.touch()
	if len(u.times) >= r.limit {
		u.rejected++
		return fmt.Errorf("user %q is over its limit of %d requests per %v", req.User, r.limit, r.window)
	}
	u.accepted++
	u.times = append(u.times, now)
	r.q.push(req)
	return nil
}

// Release lets the head go while the room budget allows (see roomBudget).
func (r *rpmQueue) Release(_ time.Duration, st State, c Capacity) []Release {
	return r.q.releaseHead(st, c)
}

// StateEvents implements StateReporter: Source "rpm" with, per user,
// "admitted:<user>" and "rejected:<user>" (totals since the start).
func (r *rpmQueue) StateEvents(now time.Duration) []StateEvent {
	if !r.events.due(now) {
		return nil
	}
	vals := make(map[string]float64, 2*len(r.admitted))
	for name, u := range r.admitted {
		vals["admitted:"+name] = float64(u.accepted)
		vals["rejected:"+name] = float64(u.rejected)
	}
	return []StateEvent{{Source: "rpm", Values: vals}}
}
