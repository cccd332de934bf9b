package replay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Options configure a real-time Run.
type Options struct {
	Common
	// Backends are the base URLs, indexed in order.
	Backends []string
	// Client sends the Requests.
	Client *client.Client
	// Grace is how long in-flight requests may finish after a stop
	// (default 10 s).
	Grace time.Duration
	// ScrapeEvery scrapes each Backend's /metrics at this interval (0:
	// off); each scrape may take as long, at least a second.
	ScrapeEvery time.Duration
	// KVEvents are the Backends' KV event endpoints, by Backend index,
	// read when the Router is a policies.KVEventRouter (precise-prefix);
	// a Backend without one is reported unreachable and the Router
	// decides by load alone.
	KVEvents []KVEndpoint
	// KVListen, when its Endpoint is set, binds one SUB socket that the
	// Backends' publishers dial instead of dialling each (KVEvents then
	// gives only their replay endpoints).
	KVListen KVListen
	// Discover, when set, re-resolves the fleet during the Run: Backends
	// join and leave (recorded as fleet: Events).
	Discover *Discovery
}

// Common is what a real-time Run (Options) and a simulation
// (sim.Options) take alike: the Requests, the policy, its limits and
// where the Results go.
type Common struct {
	// Source yields the Requests (already paced: Arrival offsets).
	Source traces.Source
	// Router and Queue are the Policy.
	Router policies.Router
	Queue  policies.Queue
	// Capacity bounds each Backend for the Queue (zero: unlimited).
	Capacity policies.Capacity
	// MaxInflight caps in-flight requests over all Backends (0: none);
	// the wait behind it counts in TTFT and is reported as queue wait.
	MaxInflight int
	// Results receives every Result as it finishes (may be nil).
	Results *results.Writer
	// OnResult is called for every Result, from one goroutine (may be nil).
	OnResult func(*results.Result)
	// OnEvent is called for every policy state Event, from the same
	// goroutine as OnResult (may be nil).
	OnEvent func(*results.Event)
	// Counters, if set, is updated live for progress display.
	Counters *Counters
	// PD, when set, disaggregates prefill and decode (see PDOptions).
	PD *PDOptions
	// Sessions paces the turns of sessions (zero: closed-loop, replies
	// fed back, sessions starting at their trace times).
	Sessions Sessions
}

// Counters are live figures of a Run, safe to read from any goroutine.
type Counters struct {
	Arrived, Sent, Done, Errors, InFlight, Held atomic.Int64
}

// event is what workers and scrapers send back to the scheduler.
type event struct {
	done    *results.Result
	prefill *results.Result // the Result whose prefill phase ended (res.PD)
	req     *traces.Request
	tokens  int
	scrape  *scrapeResult
	fleet   []string // a fresh resolution of the fleet
}

type scrapeResult struct {
	backend int
	m       ServerMetrics
	err     error // why the scrape failed (nil when m.OK)
}

// Run replays o.Source in real time and returns the stop record. A
// canceled ctx stops dispatch; in-flight requests get o.Grace to finish.
// It returns an error only for failures of the tool itself (a Source
// error, a Router that cannot pick); per-request failures are Results.
func Run(ctx context.Context, o Options) (results.Stop, error) {
	if len(o.Backends) == 0 {
		return results.Stop{Reason: "no backends"}, errors.New("no backends to send to")
	}
	if o.PD != nil {
		if err := o.PD.Validate(len(o.Backends)); err != nil {
			return results.Stop{Reason: results.StopError(err)}, err
		}
	}
	if err := o.Sessions.Validate(); err != nil {
		return results.Stop{Reason: results.StopError(err)}, err
	}
	s := newScheduler(o)
	return s.run(ctx)
}

// scheduler is the goroutine that owns the Source, pacing and Dispatcher.
type scheduler struct {
	o        Options
	d        *Dispatcher
	start    time.Time
	events   chan event
	results  chan record
	inflight int
	// g paces the Source's Requests (sessions); next is its next one.
	g        *Gate
	next     *traces.Request
	srcErr   error
	counters *Counters
	scrapes  scrapeDeltas
	// scrapeWarned marks the Backends whose scrape problem was logged.
	scrapeWarned map[int]bool
	rates        RateMeter
	// hostCPU reads the machine's CPU counters (readHostCPU; ok false
	// when unavailable) at the start and the end of the Run.
	hostCPU func() (hostCPU, bool)
	// hostLoad reads the machine's 1-minute load average (readHostLoad;
	// ok false when unavailable) at the end of the Run.
	hostLoad func() (float64, bool)
	// urls are the Backends' base URLs by Index (o.Backends, then every
	// Backend that joined).
	urls []string
	// startPoller scrapes a Backend that joined (no-op without scraping).
	startPoller func(i int, url string)
	// warnedNoKV is set once a prefill answer without kv_transfer_params
	// was logged.
	warnedNoKV bool
}

// warnNoKV logs, once per Run, a prefill answer that carried no
// kv_transfer_params (the Request was then decoded alone).
func (s *scheduler) warnNoKV(r *results.Result) {
	if s.warnedNoKV || r.PD == nil || r.PD.ErrClass != results.ErrNoKVParams {
		return
	}
	s.warnedNoKV = true
	slog.Warn("a prefill backend answered without kv_transfer_params: the request was sent to its decode backend alone "+
		"(counted as no-kv-params; is the server started with a KV connector such as NixlConnector?)",
		"prefill_backend", s.urls[r.PD.Backend], "err", r.PD.Err)
}

func newScheduler(o Options) *scheduler {
	if o.Grace == 0 {
		o.Grace = 10 * time.Second
	}
	c := o.Counters
	if c == nil {
		c = &Counters{}
	}
	d := NewDispatcher(o.Router, o.Queue, o.Capacity, o.MaxInflight, o.Backends)
	if o.PD != nil {
		d.SetPD(o.PD)
	}
	return &scheduler{o: o, d: d,
		events: make(chan event, 1024), results: make(chan record, 1024), counters: c, hostCPU: readHostCPU, hostLoad: readHostLoad,
		urls: append([]string(nil), o.Backends...), startPoller: func(int, string) {}}
}

// now is the Run clock: time since start (monotonic).
func (s *scheduler) now() time.Duration { return time.Since(s.start) }

func (s *scheduler) run(ctx context.Context) (results.Stop, error) {
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	kvIdx, stopKV, err := subscribeKV(workCtx, s.o.Router, kvWiring{eps: s.o.KVEvents, listen: s.o.KVListen,
		backends: s.o.Backends})
	if err != nil {
		return results.Stop{Reason: results.StopError(err)}, err
	}
	defer stopKV()
	waitSubscribed(ctx, kvIdx)
	s.start = time.Now()
	cpu0, cpuOK := s.hostCPU()
	collected := s.collect()
	stopScrape := s.startScrape(workCtx)
	s.startDiscovery(workCtx)
	s.g = NewGate(s.o.Source, s.o.Sessions)
	s.fetch()
	reason, err := s.loop(ctx, workCtx)
	if reason != results.StopDone {
		if reason != results.StopInterrupted {
			cancelWork()
		}
		s.drain(workCtx, cancelWork)
		for _, r := range s.d.Abandon(s.now()) {
			s.results <- record{res: r}
		}
	}
	stopScrape()
	// The Run ends here: the last scrape below does not count in Elapsed.
	end := s.now()
	s.finalScrape(ctx, end)
	close(s.results)
	<-collected
	extra := MergeExtra(s.scrapes.extra(), s.rates.Extra())
	if cpu1, ok := s.hostCPU(); ok && cpuOK {
		extra = MergeExtra(extra, hostExtra(cpu0, cpu1))
	}
	if load, ok := s.hostLoad(); ok {
		extra = MergeExtra(extra, loadExtra(load))
	}
	kvx, notes := KVExtra(kvIdx, stopKV())
	extra = MergeExtra(extra, kvx)
	extra = MergeExtra(extra, s.d.PolicyExtra())
	extra = MergeExtra(extra, s.g.Extra())
	return results.Stop{Reason: reason, Elapsed: end, Extra: extra, Notes: notes}, err
}

// fetch sets s.next to the gate's next Request (nil: none known yet).
func (s *scheduler) fetch() {
	s.next = s.g.Peek(s.now())
	s.srcErr = s.g.Err()
}

// loop paces arrivals and handles events until the Source is exhausted
// and nothing is in flight or held, or ctx is canceled.
func (s *scheduler) loop(ctx, workCtx context.Context) (results.StopReason, error) {
	pc := newPacer()
	defer pc.stop()
	for {
		if s.srcErr != nil {
			return results.StopError(s.srcErr), fmt.Errorf("read requests: %w", s.srcErr)
		}
		if s.next == nil && s.inflight == 0 && s.d.Held() == 0 && !s.g.Pending() {
			return results.StopDone, nil
		}
		var rearm <-chan time.Time
		var arrive <-chan struct{}
		if s.next != nil {
			rearm, arrive = pc.wait(s.start.Add(s.next.Arrival))
		}
		select {
		case <-ctx.Done():
			return results.StopInterrupted, nil
		case <-rearm:
		case <-arrive:
			pc.fired()
			if err := s.arrivals(workCtx); err != nil {
				return results.StopError(err), err
			}
		case ev := <-s.events:
			if err := s.handle(workCtx, ev); err != nil {
				return results.StopError(err), err
			}
		}
	}
}

// arrivals hands every Request whose time has come to the Dispatcher.
func (s *scheduler) arrivals(workCtx context.Context) error {
	now := s.now()
	for s.next != nil && s.next.Arrival <= now {
		req := s.next
		s.g.Pop()
		s.counters.Arrived.Add(1)
		if rej := s.d.Arrive(now, req); rej != nil {
			s.g.Done(rej, nil)
			s.results <- record{res: rej}
		}
		s.fetch()
	}
	return s.pump(workCtx)
}

// handle applies one worker or scraper event.
func (s *scheduler) handle(workCtx context.Context, ev event) error {
	switch {
	case ev.fleet != nil:
		s.applyFleet(s.now(), ev.fleet)
	case ev.scrape != nil:
		s.d.Tracker().OnScrape(ev.scrape.backend, ev.scrape.m)
		s.recordScrape(s.now(), ev.scrape)
		return nil
	case ev.prefill != nil:
		s.d.PrefillDone(s.now(), ev.req, ev.prefill)
	case ev.done != nil:
		s.warnNoKV(ev.done)
		s.inflight--
		s.counters.InFlight.Add(-1)
		s.d.Done(s.now(), ev.req, ev.done)
		s.g.Done(ev.done, ev.done.Answer)
		ev.done.Answer = nil
		s.results <- record{res: ev.done}
		s.fetch()
	default:
		s.d.Tokens(s.now(), ev.req, ev.tokens)
		return nil
	}
	return s.pump(workCtx)
}

// pump sends whatever the Dispatcher releases.
func (s *scheduler) pump(workCtx context.Context) error {
	now := s.now()
	ds, err := s.d.Pump(now)
	for _, d := range ds {
		s.launch(workCtx, d)
	}
	for _, e := range s.d.TakeEvents(now) {
		s.results <- record{ev: &e}
	}
	s.counters.Held.Store(int64(s.d.Held()))
	return err
}

// launch starts a worker goroutine for one Dispatch.
func (s *scheduler) launch(workCtx context.Context, d Dispatch) {
	s.inflight++
	s.counters.Sent.Add(1)
	s.counters.InFlight.Add(1)
	res := NewResult(d.Seq, d.Req, d.Backend, d.Released)
	res.PredictedHitTokens = d.PredictedHitTokens
	res.Answer = s.g.AnswerFor(d.Req)
	var onTokens func(int)
	if s.d.WantsTokens() {
		onTokens = func(n int) { s.events <- event{req: d.Req, tokens: n} }
	}
	url := s.urls[d.Backend]
	if d.Prefill != nil {
		res.PD = &results.PrefillPhase{Backend: d.Prefill.Backend, Protocol: s.o.PD.Protocol}
		if res.PD.Protocol == "" {
			res.PD.Protocol = results.PDTwoStep
		}
		purl := s.urls[d.Prefill.Backend]
		ph := *res.PD // the scheduler reads this copy: res is the worker's until done
		go func() {
			s.o.Client.DoPD(workCtx, purl, url, d.Req, res, s.now, onTokens, func() {
				ph.Done, ph.ErrClass, ph.CachedTokens = res.PD.Done, res.PD.ErrClass, res.PD.CachedTokens
				s.events <- event{prefill: &results.Result{Intended: res.Intended, Sent: res.PD.Sent, PD: &ph}, req: d.Req}
			})
			s.events <- event{done: res, req: d.Req}
		}()
		return
	}
	go func() {
		s.o.Client.Do(workCtx, url, d.Req, res, s.now, onTokens)
		s.events <- event{done: res, req: d.Req}
	}()
}

// drain waits up to the grace period for in-flight requests, then
// cancels them (they finish as ErrCanceled Results).
func (s *scheduler) drain(_ context.Context, cancelWork context.CancelFunc) {
	grace := time.NewTimer(s.o.Grace)
	defer grace.Stop()
	for s.inflight > 0 {
		select {
		case <-grace.C:
			cancelWork()
		case ev := <-s.events:
			if ev.done != nil {
				s.inflight--
				s.counters.InFlight.Add(-1)
				s.results <- record{res: ev.done}
			}
		}
	}
}

// record is one line for the collector: a Result or an Event.
type record struct {
	res *results.Result
	ev  *results.Event
}

// collect writes Results and Events to the file and the callbacks from
// one goroutine.
func (s *scheduler) collect() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for rec := range s.results {
			if rec.ev != nil {
				s.writeEvent(rec.ev)
				continue
			}
			s.o.Deliver(rec.res, s.counters, &s.rates)
		}
	}()
	return done
}

func (s *scheduler) writeEvent(e *results.Event) {
	if s.o.Results != nil {
		_ = s.o.Results.WriteEvent(e)
	}
	if s.o.OnEvent != nil {
		s.o.OnEvent(e)
	}
}
