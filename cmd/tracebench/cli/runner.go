package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// runSpec is everything one Run needs once flags are parsed.
type runSpec struct {
	wf       workloadFlags
	pf       policyFlags
	cf       clientFlags
	ro       reports.Options
	router   string
	backends []string
	mode     string
	// sim, when > 0, runs that many simulated engines in virtual time
	// (configured by engines) instead of sending HTTP.
	sim     int
	engines engine.Config
	// simTok tokenises the simulated engines' text prompts (nil: the
	// mock's default, whitespace).
	simTok tokenizer.Tokenizer
	// fleet is the in-process engines' configuration (--mock, --sim), and
	// preset its --mock-preset; nil against --target. The results header
	// records it, and the lora-affinity filter takes its adapter slots.
	fleet  *engine.Config
	preset string
	// kvDelay is the simulated KV event lag (--kv-event-delay); kvEvents
	// the backends' KV event endpoints for a KV-event router.
	kvDelay  time.Duration
	kvEvents []replay.KVEndpoint
	// discover re-resolves dns+http:// targets during the run (nil: the
	// fleet is fixed).
	discover *replay.Discovery
	results  string
	// extra returns run-level figures measured outside Results (the mock
	// fleet's step lateness); may be nil.
	extra func() map[string]float64
	// onResult, when set, sees every Result after it is counted and
	// returns a non-empty stop reason to end the Run there: dispatch
	// stops, in-flight requests finish within --grace, and the reason is
	// written as the results file's stop reason (see errorLimit).
	onResult func(*replay.Result) string
	errOut   io.Writer
	quiet    bool
	// notes are added to the header's Config (a live bench's cache
	// state and order).
	notes map[string]any
}

// loraSlots gives the lora-affinity filter the engines' adapter slots
// when its max_loras is not set; set to another number than the engines
// have, it is a usage error naming both.
func loraSlots(pf policyFlags, engineSlots int) (policyFlags, error) {
	if pf.Filter != "lora-affinity" || engineSlots == 0 {
		return pf, nil
	}
	fp, err := parseKV("filter-param", pf.FilterArgs)
	if err != nil {
		return pf, err
	}
	v, given := fp["max_loras"]
	if !given {
		pf.FilterArgs = append(slices.Clone(pf.FilterArgs), fmt.Sprintf("max_loras=%d", engineSlots))
		return pf, nil
	}
	if v != strconv.Itoa(engineSlots) {
		return pf, usagef("--filter-param max_loras=%s contradicts the mock engines' --mock-max-loras %d: "+
			"the filter would count slots the servers do not have; give one of them", v, engineSlots)
	}
	return pf, nil
}

// execute runs one Run and returns its Summary.
func execute(ctx context.Context, rs runSpec) (*reports.Summary, error) {
	src, err := openSource(rs.wf)
	if err != nil {
		return nil, err
	}
	defer src.close()
	pf := rs.pf
	pf.sloWeights = rs.ro.SLO.Weights()
	if rs.fleet != nil {
		src.lengths = &lengthCheck{limit: engineLimit(*rs.fleet)}
		if pf, err = loraSlots(pf, rs.fleet.LoRA.MaxLoras); err != nil {
			return nil, err
		}
	}
	pol, err := buildPolicy(pf, rs.router, rs.wf.Seed)
	if err != nil {
		return nil, err
	}
	rs.warnCapacity(pol.queue.Name())
	client, closeClient, err := rs.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer closeClient()
	// The header's Started is taken here, with only the results file's
	// creation between it and the Run (the progress total is counted
	// alongside the Run).
	h := header(rs, src.ident, pol)
	dialectConfig(&h, rs.cf)
	for k, v := range rs.notes {
		h.Config[k] = v
	}
	if rs.mode == "target" && len(rs.backends) > 0 {
		if info := fetchServerInfo(ctx, rs.backends[0]); info != nil {
			h.Config["server"] = info
		}
	}
	w, err := replay.Create(rs.results, h)
	if err != nil {
		return nil, err
	}
	acc := reports.NewAccumulator(h, rs.ro)
	stop, runErr := rs.run(ctx, h.Policy, src, pol, client, w, acc)
	rs.addExtra(&stop, src)
	if err := w.Close(stop); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		runErr = src.allSkipped(rs.wf.Trace)
	}
	rs.reportTooLong(src.lengths)
	sum := acc.Finish(&stop)
	return sum, runOutcome(stop.Reason, runErr)
}

// connect sets the Run up to send: to rs.sim simulated engines in
// virtual time (no client), else over an HTTP client checked against
// every backend, the model it sends put in rs.cf.Model. The returned
// func releases the client.
func (rs *runSpec) connect(ctx context.Context) (*replay.Client, func(), error) {
	if rs.sim > 0 {
		rs.backends, rs.mode = replay.SimBackendNames(rs.sim), "sim"
		return nil, func() {}, nil
	}
	client, model, err := newClient(ctx, &rs.cf, rs.backends)
	if err != nil {
		return nil, nil, err
	}
	rs.cf.Model = model
	return client, client.Close, nil
}

// run dispatches the Run with the progress display (titled name) on,
// counting every Result in acc, and returns its stop line, whose reason
// is rs.onResult's when that stopped the Run.
func (rs runSpec) run(ctx context.Context, name string, src traces.Source, pol builtPolicy,
	client *replay.Client, w *replay.Writer, acc *reports.Accumulator) (replay.Stop, error) {
	counters := &replay.Counters{}
	stopProgress := rs.progress(ctx, name, counters)
	rst := newRunStopper(ctx, acc.Add, rs.onResult)
	stop, err := rs.dispatch(rst.ctx, src, pol.router, pol.queue, client, w, rst.add, acc.AddEvent, counters)
	stopProgress()
	stop.Reason = rst.finish(ctx, stop.Reason)
	return stop, err
}

// addExtra puts in the stop line the figures measured outside the
// Results (rs.extra) and the number of malformed records skipped,
// which it also reports on errOut.
func (rs runSpec) addExtra(stop *replay.Stop, src *source) {
	if rs.extra != nil {
		stop.Extra = replay.MergeExtra(stop.Extra, rs.extra())
	}
	n := src.skipped()
	if n == 0 {
		return
	}
	stop.Extra = replay.MergeExtra(stop.Extra, map[string]float64{"skipped_records": float64(n)})
	if rs.errOut != nil {
		fmt.Fprintf(rs.errOut, "tracebench: skipped %s of %s\n", traces.MalformedText(n), rs.wf.Trace)
	}
}

// runOutcome is execute's error: the Run's own, else ErrInterrupted
// when it stopped on an interrupt.
func runOutcome(reason string, err error) error {
	if err == nil && reason == "interrupted" {
		return ErrInterrupted
	}
	return err
}

// runStopper passes every Result to count, then to check (may be nil):
// the first non-empty reason check returns cancels ctx, which stops the
// Run as an interrupt would, and finish puts that reason in the stop
// line. Results come from one goroutine, and the Run has returned (its
// collector done) before finish reads the reason.
type runStopper struct {
	ctx    context.Context
	cancel context.CancelFunc
	count  func(*replay.Result)
	check  func(*replay.Result) string
	reason string
}

func newRunStopper(parent context.Context, count func(*replay.Result), check func(*replay.Result) string) *runStopper {
	s := &runStopper{count: count, check: check}
	s.ctx, s.cancel = context.WithCancel(parent)
	return s
}

// add counts r, then checks whether the Run must stop.
func (s *runStopper) add(r *replay.Result) {
	s.count(r)
	if s.check == nil || s.reason != "" {
		return
	}
	if s.reason = s.check(r); s.reason != "" {
		s.cancel()
	}
}

// finish releases the context and returns the Run's stop reason: the
// check's reason where the Run stopped on it rather than on the
// caller's interrupt.
func (s *runStopper) finish(parent context.Context, reason string) string {
	s.cancel()
	if s.reason != "" && reason == "interrupted" && parent.Err() == nil {
		return s.reason
	}
	return reason
}

// dispatch runs the Requests in virtual time or over HTTP; add sees
// every Result and event every policy state Event.
func (rs runSpec) dispatch(ctx context.Context, src traces.Source, r policies.Router, q policies.Queue,
	client *replay.Client, w *replay.Writer, add func(*replay.Result), event func(*replay.Event),
	c *replay.Counters) (replay.Stop, error) {
	common := replay.Common{Source: src, Router: r, Queue: q,
		Capacity:    policies.Capacity{Requests: rs.pf.Capacity, Tokens: rs.pf.TokenBudget},
		MaxInflight: rs.pf.MaxInflight, Results: w, OnResult: add, OnEvent: event, Counters: c}
	if rs.sim > 0 {
		cfgs := make([]engine.Config, rs.sim)
		for i := range cfgs {
			cfgs[i] = rs.engines
			cfgs[i].Seed = rs.engines.Seed + int64(i)
		}
		return replay.Simulate(ctx, replay.SimOptions{Common: common, Engines: cfgs, KVEventDelay: rs.kvDelay, Tokenizer: rs.simTok})
	}
	return replay.Run(ctx, replay.Options{Common: common, Backends: rs.backends, Client: client,
		Grace: rs.cf.Grace, ScrapeEvery: scrapeEvery(rs.cf), KVEvents: rs.kvEvents,
		Discover: rs.discover})
}

// scrapeEvery is the metrics scrape period, 0 without --scrape.
func scrapeEvery(cf clientFlags) time.Duration {
	if !cf.Scrape {
		return 0
	}
	return cf.ScrapeInt
}

// resultsPath is dir/results-<policy>.jsonl.
func resultsPath(dir, policy string) string {
	return filepath.Join(dir, "results-"+policy+".jsonl")
}
