package replay

import (
	"fmt"
	"sort"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Dispatch is one Request the Dispatcher sends to a Backend.
type Dispatch struct {
	// Seq is the dispatch order within the Run.
	Seq int64
	// Req is the Request.
	Req *traces.Request
	// Backend is the chosen Backend's Index.
	Backend int
	// Released is when the Queue (and the in-flight cap) let it go.
	Released time.Duration
	// PredictedHitTokens is the Router's expected prefix hit.
	PredictedHitTokens int
	// Prefill, when set, is the prefill Backend of a disaggregated
	// Request; Backend then decodes it.
	Prefill *PrefillPick
}

// Dispatcher holds a Run's policy state: the Queue, the Router, the
// Tracker and the in-flight cap. It never reads a clock: every method
// takes the current time, so real-time and virtual-time drivers share it.
// It is owned by one goroutine.
type Dispatcher struct {
	router      policies.Router
	hits        *policies.HitModel // nil when the Router predicts its own hits
	queue       policies.Queue
	capacity    policies.Capacity
	maxInflight int
	tracker     *Tracker
	gate        []policies.Release
	seq         int64
	tokens      bool
	// arrived maps a held Request to when Arrive saw it, so a Request
	// released in the same instant counts as never held (its lateness is
	// schedule lag, not queue wait).
	arrived map[*traces.Request]time.Duration
	events  []results.Event
	pd      *pdState // nil unless SetPD
}

// NewDispatcher builds a Dispatcher over backends. maxInflight caps the
// total in-flight requests (0 = no cap); c bounds each Backend. A Router
// that is no policies.HitPredictor gets its predicted hits from one
// policies.HitModel the Dispatcher keeps beside it.
func NewDispatcher(r policies.Router, q policies.Queue, c policies.Capacity, maxInflight int, backends []string) *Dispatcher {
	_, rt := policies.As[policies.TokenFeedback](r)
	_, qt := q.(policies.TokenFeedback)
	return &Dispatcher{router: r, hits: policies.HitModelFor(r), queue: q, capacity: c, maxInflight: maxInflight,
		tracker: NewTracker(backends), tokens: rt || qt, arrived: map[*traces.Request]time.Duration{}}
}

// Join adds the Backend at url to the fleet mid-run (see Tracker.Join).
func (d *Dispatcher) Join(url string) (int, bool) {
	i, joined := d.tracker.Join(url)
	if joined && d.pd != nil {
		d.pd.join(i, url)
	}
	return i, joined
}

// Leave takes Backend i out of the fleet mid-run: the policies no longer
// see it, so it gets no new picks; its in-flight requests finish and
// are accounted as usual.
func (d *Dispatcher) Leave(i int) bool { return d.tracker.Leave(i) }

// Tracker returns the Backend state tracker.
func (d *Dispatcher) Tracker() *Tracker { return d.tracker }

// PolicyExtra returns the Router's and the Queue's run-level figures for
// the stop line (nil when neither reports any). Call it after the Run.
func (d *Dispatcher) PolicyExtra() map[string]float64 {
	var out map[string]float64
	if r, ok := policies.As[policies.StopReporter](d.router); ok {
		out = MergeExtra(out, r.StopExtras())
	}
	if q, ok := d.queue.(policies.StopReporter); ok {
		out = MergeExtra(out, q.StopExtras())
	}
	return out
}

// WantsTokens reports whether a policy needs per-chunk token feedback.
func (d *Dispatcher) WantsTokens() bool { return d.tokens }

// Held is the number of Requests waiting in the Queue or behind the cap.
func (d *Dispatcher) Held() int { return d.queue.Len() + len(d.gate) }

// Arrive hands req to the Queue at now. A rejected Request comes back as
// a finished Result with ErrClass "rejected".
func (d *Dispatcher) Arrive(now time.Duration, req *traces.Request) *results.Result {
	if err := d.queue.Arrive(now, req); err != nil {
		r := NewResult(d.seq, req, -1, now)
		d.seq++
		r.Sent, r.Done, r.ErrClass, r.Err = now, now, results.ErrRejected, err.Error()
		return r
	}
	d.arrived[req] = now
	return nil
}

// Pump releases what the Queue lets go, routes it and returns the
// Dispatches to send now.
func (d *Dispatcher) Pump(now time.Duration) ([]Dispatch, error) {
	var out []Dispatch
	for {
		if d.tracker.Live() == 0 {
			return out, nil // every Backend left: hold until one joins
		}
		if len(d.gate) == 0 {
			d.gate = d.queue.Release(now, d.tracker.Snapshot(now), d.capacity)
			if len(d.gate) > 0 {
				d.pollState(now)
			}
		}
		if len(d.gate) == 0 {
			return out, nil
		}
		n, err := d.drainGate(now, &out)
		if err != nil || n == 0 {
			return out, err
		}
	}
}

// drainGate dispatches gated Releases while the in-flight cap allows.
func (d *Dispatcher) drainGate(now time.Duration, out *[]Dispatch) (int, error) {
	n := 0
	for len(d.gate) > 0 {
		if d.maxInflight > 0 && d.tracker.InFlight() >= d.maxInflight {
			break
		}
		rel := d.gate[0]
		d.gate = d.gate[1:]
		disp, err := d.route(now, rel)
		if err != nil {
			return n, err
		}
		*out = append(*out, disp)
		n++
	}
	return n, nil
}

// route picks a Backend when the Queue left the choice to the Router,
// offering only Backends with room under the capacity.
func (d *Dispatcher) route(now time.Duration, rel policies.Release) (Dispatch, error) {
	disp := Dispatch{Seq: d.seq, Req: rel.Req, Backend: rel.Backend, Released: now}
	if at, ok := d.arrived[rel.Req]; ok && at == now {
		disp.Released = min(now, rel.Req.Arrival)
	}
	delete(d.arrived, rel.Req)
	switch {
	case rel.Backend >= 0:
	case d.pd != nil:
		if err := d.routePD(now, rel.Req, &disp); err != nil {
			return disp, err
		}
	default:
		st := d.tracker.Snapshot(now)
		st.Backends = withRoom(st.Backends, d.capacity, reqTokens(rel.Req))
		ch, err := d.pick(d.router, rel.Req, st)
		if err != nil {
			return disp, err
		}
		d.hits.Fill(rel.Req, st, &ch)
		disp.Backend, disp.PredictedHitTokens = ch.Backend, ch.PredictedHitTokens
	}
	d.seq++
	d.tracker.OnDispatch(disp.Backend, reqTokens(rel.Req))
	return disp, nil
}

// pick asks r for a Backend of st and checks the answer.
func (d *Dispatcher) pick(r policies.Router, req *traces.Request, st policies.State) (policies.Choice, error) {
	ch, err := r.Pick(req, st)
	if err != nil {
		return ch, fmt.Errorf("router %s: %w", r.Name(), err)
	}
	if ch.Backend < 0 || ch.Backend >= d.tracker.Len() {
		return ch, fmt.Errorf("router %s picked backend %d of %d", r.Name(), ch.Backend, d.tracker.Len())
	}
	if d.tracker.gone[ch.Backend] {
		return ch, fmt.Errorf("router %s picked backend %d, which left the fleet", r.Name(), ch.Backend)
	}
	return ch, nil
}

// withRoom filters bs to Backends with room; all of them when none has.
func withRoom(bs []policies.Backend, c policies.Capacity, tokens int) []policies.Backend {
	if c == (policies.Capacity{}) {
		return bs
	}
	out := bs[:0:0]
	for _, b := range bs {
		if c.Room(b, tokens) {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return bs
	}
	return out
}

// reqTokens is a Request's expected footprint: prompt + output tokens.
func reqTokens(r *traces.Request) int { return r.InputTokens + r.OutputTokens }

// Abandon ends every Request still held by the Queue or the in-flight cap
// at now, as Results of class "canceled" that never reached a Backend,
// in arrival order (a stopped Run still accounts for what arrived). The
// Dispatcher must not release anything after it.
func (d *Dispatcher) Abandon(now time.Duration) []*results.Result {
	held := make([]*traces.Request, 0, len(d.arrived))
	for r := range d.arrived {
		held = append(held, r)
	}
	sort.Slice(held, func(i, j int) bool {
		if held[i].Arrival != held[j].Arrival {
			return held[i].Arrival < held[j].Arrival
		}
		return held[i].ID < held[j].ID
	})
	out := make([]*results.Result, 0, len(held))
	for _, r := range held {
		res := NewResult(d.seq, r, -1, now)
		d.seq++
		res.Done, res.ErrClass, res.Err = now, results.ErrCanceled, "run stopped while the request was held in the client"
		out = append(out, res)
	}
	d.arrived, d.gate = map[*traces.Request]time.Duration{}, nil
	return out
}

// Tokens reports n new output tokens of req at now to policies that
// account them as they stream.
func (d *Dispatcher) Tokens(now time.Duration, req *traces.Request, n int) {
	if tf, ok := d.queue.(policies.TokenFeedback); ok {
		tf.Tokens(now, req, n)
	}
	if tf, ok := policies.As[policies.TokenFeedback](d.router); ok {
		tf.Tokens(now, req, n)
	}
}

// Done records the end of a dispatched Request and feeds the policies.
func (d *Dispatcher) Done(now time.Duration, req *traces.Request, r *results.Result) {
	if r.PD != nil {
		d.PrefillDone(now, req, r)
	}
	d.tracker.OnDone(r.Backend, reqTokens(req), r)
	out := outcome(req, r)
	if fb, ok := d.queue.(policies.Feedback); ok {
		fb.Done(now, req, out)
	}
	if fb, ok := policies.As[policies.Feedback](d.router); ok {
		fb.Done(now, req, out)
	}
	d.indexAnswer(now, req, r)
	d.pollState(now)
}

// indexAnswer gives a Router that learns answers (policies.AnswerIndexer)
// the prompt of a finished turn extended by the answer a later turn of
// its session will carry.
// The shared hit model (for Routers without a view of their own) always
// learns it: it models the servers, which cache what they generate.
func (d *Dispatcher) indexAnswer(now time.Duration, req *traces.Request, r *results.Result) {
	if r.Answer == nil || !r.OK() || r.Backend < 0 {
		return
	}
	ai, ok := policies.As[policies.AnswerIndexer](d.router)
	if !ok && d.hits == nil {
		return
	}
	a := answered(req, r.Answer, r.CompletionTokens)
	switch {
	case a == nil:
	case ok:
		ai.IndexAnswer(now, a, r.Backend)
	default:
		d.hits.Observe(a, policies.Backend{Index: r.Backend})
	}
}

// pollState collects the Queue's state samples, if it reports any.
func (d *Dispatcher) pollState(now time.Duration) {
	sr, ok := d.queue.(policies.StateReporter)
	if !ok {
		return
	}
	for _, e := range sr.StateEvents(now) {
		d.events = append(d.events, results.Event{At: now, Source: e.Source, Values: e.Values})
	}
}

// TakeEvents returns the state samples collected since the last call
// (after polling the Queue at now).
func (d *Dispatcher) TakeEvents(now time.Duration) []results.Event {
	d.pollState(now)
	ev := d.events
	d.events = nil
	return ev
}

// outcome converts a Result into the policies' view of it.
func outcome(req *traces.Request, r *results.Result) policies.Outcome {
	o := policies.Outcome{Backend: r.Backend, PromptTokens: r.PromptTokens, OutputTokens: r.CompletionTokens,
		CachedTokens: r.CachedTokens, TTFT: r.TTFT(), TBT: r.TPOT(), Failed: !r.OK()}
	if o.TBT == 0 {
		o.TBT = meanGap(r)
	}
	if o.PromptTokens == 0 {
		o.PromptTokens = req.InputTokens
	}
	return o
}

// NewResult starts the Result of req dispatched as seq to backend.
func NewResult(seq int64, req *traces.Request, backend int, released time.Duration) *results.Result {
	r := &results.Result{Seq: seq, ID: req.ID, User: req.User, Session: req.Session, Backend: backend,
		Intended: req.Arrival, Released: released, InputTokens: req.InputTokens, OutputTokens: req.OutputTokens,
		Turn: req.Turn}
	if req.ThinkKnown {
		r.Think = req.Think
	}
	return r
}
