package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/sim"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// Spec is everything one Run needs: the workload, the policy, the client
// settings, the report options, and where the Requests go (Backends over
// HTTP, or Sim simulated engines in virtual time).
type Spec struct {
	// Workload chooses the Requests: a trace file or a generator, and how
	// they arrive.
	Workload Workload
	// Policy holds the queue and the router's and queue's parameters.
	Policy Policy
	// Client sets how Requests are sent over HTTP (unused with Sim).
	Client Client
	// Report holds the SLO bounds and weights the Summary is computed with.
	Report metrics.Options
	// Backends are the servers' base URLs; Run sets them to the simulated
	// engines' names with Sim.
	Backends []string
	// Mode names the fleet in the results header: results.ModeTarget,
	// ModeMock or ModeSim (Run sets ModeSim with Sim).
	Mode results.Mode
	// Sim, when > 0, runs that many simulated engines in virtual time
	// (configured by Fleet, engine i seeded Fleet.Seed+i) instead of
	// sending HTTP.
	Sim int
	// SimTokenizer tokenises the simulated engines' text prompts (nil:
	// the mock's default, whitespace).
	SimTokenizer tokenizer.Tokenizer
	// SimCut ends a simulated Run as a measured one ended (first-byte
	// timeout, stop time); zero: it runs to the end.
	SimCut sim.Cut
	// SimWarm, with Sim, is the per-slot cache state simulated engine i
	// starts from (SimWarm[i]; nil or missing: empty slots), as an
	// earlier run on the same servers left them (calibrate.WarmState).
	SimWarm []*engine.SlotState
	// Fleet is the in-process engines' configuration (mock or simulated),
	// and Preset its preset name; nil against live targets (with Sim, nil
	// runs engine.DefaultConfig()). The results header records it,
	// requests longer than it accepts are counted, and the lora-affinity
	// filter takes its adapter slots.
	Fleet  *engine.Config
	Preset string
	// KVDelay is the simulated KV event lag with Sim (default 0);
	// KVEvents the backends' KV event endpoints for a KV-event router.
	KVDelay  time.Duration
	KVEvents []replay.KVEndpoint
	// KVListen binds one SUB socket the backends' publishers dial
	// instead of dialling each (Endpoint empty: dial).
	KVListen replay.KVListen
	// Discover re-resolves dns+http:// targets during the Run, backends
	// joining and leaving (nil: the fleet is fixed).
	Discover *replay.Discovery
	// Results is the path of the results file (JSONL) Run writes.
	Results string
	// Extra returns run-level figures measured outside the Results (a mock
	// fleet's step lateness), put in the stop record; may be nil.
	Extra func() map[string]float64
	// OnResult, when set, sees every Result after it is counted and
	// returns a non-empty stop reason to end the Run there: dispatch
	// stops, in-flight requests finish within Client.Grace, and the
	// reason is written as the results file's stop reason.
	OnResult func(*results.Result) results.StopReason
	// ErrOut receives warnings and the progress display (nil: none);
	// Quiet turns the progress display off.
	ErrOut io.Writer
	Quiet  bool
	// benchCaches, benchOrder and benchProbe are a live bench's cache
	// state, order and speed probe before the Run, written as the results
	// header's config.bench_caches, bench_order and bench_probe_rps.
	benchCaches, benchOrder string
	benchProbe              float64
	// PD, when set, disaggregates prefill and decode (see PD).
	PD *PD
	// pd is PD built by Run.
	pd *replay.PDOptions
}

// loraSlots gives the lora-affinity filter the engines' adapter slots
// when its max_loras is not set; set to another number than the engines
// have, it is a usage error naming both.
func loraSlots(pf Policy, engineSlots int) (Policy, error) {
	if pf.Filter != "lora-affinity" || engineSlots == 0 {
		return pf, nil
	}
	v, given := pf.FilterArgs.Lookup("max_loras")
	if !given {
		pf.FilterArgs = pf.FilterArgs.With("max_loras", traces.ParamInt(engineSlots))
		return pf, nil
	}
	if v.String() != strconv.Itoa(engineSlots) {
		return pf, fieldf("Spec.Policy.FilterArgs", "Spec.Policy.FilterArgs max_loras=%s contradicts the mock engines' Spec.Fleet.LoRA.MaxLoras %d: "+
			"the filter would count slots the servers do not have; give one of them", v, engineSlots)
	}
	return pf, nil
}

// Run replays spec's workload with its policy, writes every Result to
// spec.Results and returns the Run's Summary. The Summary is nil only when
// the Run could not start (a bad Spec, an unreachable backend); when the
// Run stops early (ctx cancelled: ErrInterrupted) the Summary and results
// file hold what was measured. Usage errors are UsageError.
func Run(ctx context.Context, rs Spec) (*metrics.Summary, error) {
	if err := rs.Validate(); err != nil {
		return nil, err
	}
	src, err := OpenSource(rs.Workload)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if rs.Sim > 0 && rs.Fleet == nil {
		rs.Fleet = new(engine.DefaultConfig())
	}
	pf := rs.Policy
	pf.sloWeights = rs.Report.SLO.Weights()
	if rs.Fleet != nil {
		src.lengths = &lengthCheck{limit: engineLimit(*rs.Fleet)}
		if pf, err = loraSlots(pf, rs.Fleet.LoRA.MaxLoras); err != nil {
			return nil, err
		}
	}
	pol, err := buildPolicy(pf, rs.Workload.Seed)
	if err != nil {
		return nil, err
	}
	if rs.pd, err = rs.buildPD(); err != nil {
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
	dialectConfig(&h, rs.Client)
	h.Config.BenchCaches, h.Config.BenchOrder = rs.benchCaches, rs.benchOrder
	h.Config.BenchProbeRPS, h.Config.BenchSalt = rs.benchProbe, rs.Client.salt
	if rs.Mode == results.ModeTarget && len(rs.Backends) > 0 {
		h.Config.Server = fetchServerInfo(ctx, rs.Backends[0])
	}
	w, err := results.Create(rs.Results, h)
	if err != nil {
		return nil, err
	}
	acc := metrics.NewAccumulator(h, rs.Report)
	stop, runErr := rs.run(ctx, h.Policy, src, pol, client, w, acc)
	rs.addExtra(&stop, src)
	if err := w.Close(stop); err != nil && runErr == nil {
		runErr = err
	}
	if runErr == nil {
		runErr = src.allSkipped(rs.Workload.Trace)
	}
	rs.reportTooLong(src.lengths)
	sum := acc.Finish(&stop)
	return sum, runOutcome(stop.Reason, runErr)
}

// connect sets the Run up to send: to rs.Sim simulated engines in
// virtual time (no client), else over an HTTP client checked against
// every backend, the model it sends put in rs.Client.Model. The returned
// func releases the client.
func (rs *Spec) connect(ctx context.Context) (*client.Client, func(), error) {
	if rs.Sim > 0 {
		rs.Backends, rs.Mode = sim.BackendNames(rs.Sim), results.ModeSim
		return nil, func() {}, nil
	}
	client, model, err := NewClient(ctx, &rs.Client, rs.Backends)
	if err != nil {
		return nil, nil, err
	}
	rs.Client.Model = model
	return client, client.Close, nil
}

// run dispatches the Run with the progress display (titled name) on,
// counting every Result in acc, and returns its stop line, whose reason
// is rs.OnResult's when that stopped the Run.
func (rs Spec) run(ctx context.Context, name string, src traces.Source, pol builtPolicy,
	client *client.Client, w *results.Writer, acc *metrics.Accumulator) (results.Stop, error) {
	counters := &replay.Counters{}
	stopProgress := rs.progress(ctx, name, counters)
	rst := newRunStopper(ctx, acc.Add, rs.OnResult)
	stop, err := rs.dispatch(rst.ctx, src, pol.router, pol.queue, client, w, rst.add, acc.AddEvent, counters)
	stopProgress()
	stop.Reason = rst.finish(ctx, stop.Reason)
	return stop, err
}

// addExtra puts in the stop line the figures measured outside the
// Results (rs.Extra) and the number of malformed records skipped,
// which it also reports on errOut.
func (rs Spec) addExtra(stop *results.Stop, src *Source) {
	if rs.Extra != nil {
		stop.Extra = replay.MergeExtra(stop.Extra, rs.Extra())
	}
	n := src.skipped()
	if n == 0 {
		return
	}
	stop.Extra = replay.MergeExtra(stop.Extra, map[string]float64{"skipped_records": float64(n)})
	if rs.ErrOut != nil {
		fmt.Fprintf(rs.ErrOut, "tracebench: skipped %s of %s\n", traces.MalformedText(n), rs.Workload.Trace)
	}
}

// runOutcome is Run's error: the Run's own, else ErrInterrupted
// when it stopped on an interrupt.
func runOutcome(reason results.StopReason, err error) error {
	if err == nil && reason == results.StopInterrupted {
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
	count  func(*results.Result)
	check  func(*results.Result) results.StopReason
	reason results.StopReason
}

func newRunStopper(parent context.Context, count func(*results.Result), check func(*results.Result) results.StopReason) *runStopper {
	s := &runStopper{count: count, check: check}
	s.ctx, s.cancel = context.WithCancel(parent)
	return s
}

// add counts r, then checks whether the Run must stop.
func (s *runStopper) add(r *results.Result) {
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
func (s *runStopper) finish(parent context.Context, reason results.StopReason) results.StopReason {
	s.cancel()
	if s.reason != "" && reason == results.StopInterrupted && parent.Err() == nil {
		return s.reason
	}
	return reason
}

// dispatch runs the Requests in virtual time or over HTTP; add sees
// every Result and event every policy state Event.
func (rs Spec) dispatch(ctx context.Context, src traces.Source, r policies.Router, q policies.Queue,
	client *client.Client, w *results.Writer, add func(*results.Result), event func(*results.Event),
	c *replay.Counters) (results.Stop, error) {
	common := replay.Common{Source: src, Router: r, Queue: q,
		Capacity:    policies.Capacity{Requests: rs.Policy.Capacity, Tokens: rs.Policy.TokenBudget},
		MaxInflight: rs.Policy.MaxInflight, Results: w, OnResult: add, OnEvent: event, Counters: c, PD: rs.pd,
		Sessions: rs.Workload.Sessions.replay(rs.Workload.Seed, rs.Workload.Duration)}
	if rs.Sim > 0 {
		cfgs := make([]engine.Config, rs.Sim)
		for i := range cfgs {
			cfgs[i] = *rs.Fleet
			cfgs[i].Seed = rs.Fleet.Seed + int64(i)
			if i < len(rs.SimWarm) {
				cfgs[i].WarmSlots = rs.SimWarm[i]
			}
		}
		return sim.Run(ctx, sim.Options{Common: common, Engines: cfgs, KVEventDelay: rs.KVDelay,
			Tokenizer: rs.SimTokenizer, Cut: rs.SimCut})
	}
	return replay.Run(ctx, replay.Options{Common: common, Backends: rs.Backends, Client: client,
		Grace: rs.Client.Grace, ScrapeEvery: scrapeEvery(rs.Client), KVEvents: rs.KVEvents,
		KVListen: rs.KVListen,
		Discover: rs.Discover})
}

// scrapeEvery is the metrics scrape period, 0 without --scrape.
func scrapeEvery(cf Client) time.Duration {
	if !cf.Scrape {
		return 0
	}
	return cf.ScrapeInt
}

// ResultsPath is dir/results-<policy>.jsonl.
func ResultsPath(dir, policy string) string {
	return filepath.Join(dir, "results-"+policy+".jsonl")
}

// Reseeded returns rs with the workload's seed and the in-process
// engines' seed moved on by k: the Spec of seed k of a batch.
func (rs Spec) Reseeded(k int) Spec {
	rs.Workload.Seed += uint64(k)
	if rs.Fleet != nil {
		cfg := *rs.Fleet
		cfg.Seed += int64(k)
		rs.Fleet = &cfg
	}
	return rs
}
