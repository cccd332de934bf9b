package policies

import (
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// vtcParams are the parameters of the vtc and lcf Queues. w_in and w_out
// are the VTC paper's defaults (Sheng et al., OSDI 2024: input tokens 1,
// output tokens 2).
var vtcParams = []ParamSpec{
	{Name: "w_in", Kind: kFloat, Default: traces.ParamFloat(1), Doc: "counter increment per input token, charged at release"},
	{Name: "w_out", Kind: kFloat, Default: traces.ParamFloat(2), Doc: "counter increment per output token, charged as tokens stream back"},
	{Name: "weights", Kind: kString, Default: traces.ParamString("none"), Doc: "per-user weights \"alice=2,bob=1\" (others 1), or none; a user's increments are divided by its weight"},
	{Name: "event_interval", Kind: kString, Default: traces.ParamString("1s"), Doc: "least run time between two counter events, seconds or a duration (0: every change)"},
}

func init() {
	registerVTC("vtc", true,
		"Virtual Token Counter: release the head of the backlogged user with the smallest weighted token counter; a user that becomes backlogged is lifted to the backlogged minimum",
		"Sheng et al., Fairness in Serving Large Language Models (OSDI 2024), Algorithm 2; VTC artifact")
}

// registerVTC registers the counter Queue called name, with the counter
// lift (vtc) or without it (lcf), and the vtc parameters.
func registerVTC(name string, lift bool, doc, source string) {
	RegisterQueue(Spec{Name: name, Doc: doc, Source: source, Params: vtcParams,
		Needs: []string{"user", "in-flight", "token-stream", NeedCapacity}},
		func(p Params, _ *rand.Rand) (Queue, error) { return newVTCQueue(name, lift, p) })
}

// vtcQueue is the Virtual Token Counter (and, without the lift, the
// least-counter-first baseline).
//
// Every user u has a counter c_u and a FIFO of waiting Requests; u is
// backlogged while its FIFO is not empty. When a Backend has room the head
// of the backlogged user with the smallest counter is released (ties: the
// earlier head arrival, then the user name) and c_u grows by
// w_in × input tokens / weight_u; each output token streamed back adds
// w_out / weight_u (at Done, tokens the stream did not report are added
// from the usage count).
//
// Counter lift (vtc only): when u's FIFO goes from empty to non-empty,
// c_u = max(c_u, min over backlogged users' counters); when nobody else
// is backlogged, c_u = max(c_u, counter of the last user whose FIFO
// emptied), as in the paper's Algorithm 2 and its artifact. Without it
// (lcf) a user that was idle keeps the credit of its idle time.
type vtcQueue struct {
	name      string
	lift      bool
	variant   vtcVariant
	predRange float64    // vtcPredict: relative error bound of the length prediction
	rng       *rand.Rand // vtcPredict: draws the prediction error
	flight    []*traces.Request
	wIn, wOut float64
	weights   map[string]float64
	users     map[string]*vtcUser
	active    []*vtcUser
	lastLeft  *vtcUser
	counted   map[*traces.Request]*vtcCount
	held      int
	events    stateThrottle
}

// vtcUser is one user's counter and waiting Requests.
type vtcUser struct {
	name    string
	weight  float64
	counter float64
	q       fifo
}

// vtcCount tracks a released Request's user, streamed output tokens,
// the output tokens charged so far and (vtcPredict) the predicted length.
type vtcCount struct {
	user    *vtcUser
	tokens  int
	charged int
	pred    int
}

// newVTCQueue parses p for vtc (lift true) or lcf (lift false).
func newVTCQueue(name string, lift bool, p Params) (*vtcQueue, error) {
	q := qparams(p)
	wIn, err := p.Float("w_in", 0, 1e6)
	if err != nil {
		return nil, err
	}
	wOut, err := p.Float("w_out", 0, 1e6)
	if err != nil {
		return nil, err
	}
	weights, err := q.weights("weights")
	if err != nil {
		return nil, err
	}
	every, err := q.seconds("event_interval", 0, 24*time.Hour)
	if err != nil {
		return nil, err
	}
	return &vtcQueue{name: name, lift: lift, wIn: wIn, wOut: wOut, weights: weights,
		users: map[string]*vtcUser{}, counted: map[*traces.Request]*vtcCount{},
		events: stateThrottle{interval: every}}, nil
}

func (v *vtcQueue) Name() string { return v.name }

func (v *vtcQueue) Len() int { return v.held }

// user returns u's state, creating it with counter 0.
func (v *vtcQueue) user(name string) *vtcUser {
	u, ok := v.users[name]
	if !ok {
		w, ok := v.weights[name]
		if !ok {
			w = 1
		}
		u = &vtcUser{name: name, weight: w}
		v.users[name] = u
	}
	return u
}

// Arrive files req under its user, lifting the counter of a user that
// becomes backlogged (vtc).
func (v *vtcQueue) Arrive(_ time.Duration, req *traces.Request) error {
	u := v.user(req.User)
	if u.q.len() == 0 {
		if v.lift {
			v.liftCounter(u)
		}
		v.active = append(v.active, u)
	}
	u.q.push(req)
	v.held++
	v.events.touch()
	return nil
}

// liftCounter raises u's counter to the backlogged minimum, or to the last
// leaver's counter when nobody is backlogged.
func (v *vtcQueue) liftCounter(u *vtcUser) {
	if len(v.active) == 0 {
		if v.lastLeft != nil {
			u.counter = max(u.counter, v.lastLeft.counter)
		}
		return
	}
	lo := v.active[0].counter
	for _, a := range v.active[1:] {
		lo = min(lo, a.counter)
	}
	u.counter = max(u.counter, lo)
}
