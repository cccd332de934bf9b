package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/traces"
	"golang.org/x/term"
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
	results string
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
}

// source is the paced, sharded Request source of a Run.
type source struct {
	traces.Source
	// ident identifies the trace or workload in the run header.
	ident string
	// close releases the trace file.
	close func()
	// skipped counts malformed records skipped (--skip-invalid).
	skipped func() int
}

// openSource builds the paced, sharded Request source and its identity.
func openSource(wf workloadFlags) (*source, error) {
	ao := traces.ArrivalOptions{TimeScale: wf.TimeScale, Rate: wf.Rate, Process: wf.Arrival, CV: wf.CV,
		MaxRequests: wf.MaxRequests, Duration: wf.Duration, Start: wf.Start, Seed: wf.Seed}
	if err := checkArrivals(ao); err != nil {
		return nil, err
	}
	if err := wf.ShareGPT.validate(); err != nil {
		return nil, err
	}
	i, n, err := parseShard(wf.Shard)
	if err != nil {
		return nil, err
	}
	s := &source{close: func() {}, skipped: func() int { return 0 }}
	var raw traces.Source
	if wf.Trace != "" {
		fs, err := traces.Open(wf.Trace, wf.ShareGPT.readOptions(traces.ReadOptions{Format: wf.Format,
			BlockSize: wf.BlockSize, SkipInvalid: wf.SkipInvalid}))
		if err != nil {
			return nil, err
		}
		if err := wf.ShareGPT.check(fs.Format()); err != nil {
			fs.Close()
			return nil, err
		}
		raw, s.close, s.skipped = fs, func() { fs.Close() }, fs.Skipped
		s.ident = fmt.Sprintf("%s (%s)", wf.Trace, fs.Format())
	} else {
		if err := wf.ShareGPT.check(""); err != nil {
			return nil, err
		}
		params, err := parseKV("workload-param", wf.WorkloadArgs)
		if err != nil {
			return nil, err
		}
		if raw, err = traces.NewWorkload(wf.Workload, params, wf.Seed); err != nil {
			return nil, usagef("--workload: %v", err)
		}
		s.ident = workloadIdent(wf.Workload, params, wf.Seed)
	}
	// Select and time the whole Run first (window, --max-requests,
	// --rate), then keep this shard's share: the shards together replay
	// exactly the unsharded Run, each Request at its unsharded time.
	s.Source = replay.ShardSource(traces.WithArrivals(raw, ao), i, n)
	return s, nil
}

// workloadIdent names a generated workload in run headers and reports:
// "workload NAME k=v... seed N" with the parameters given, sorted by
// key, and none when none were given.
func workloadIdent(name string, params map[string]string, seed uint64) string {
	parts := []string{"workload", name}
	for _, k := range sortedKeys(params) {
		parts = append(parts, k+"="+params[k])
	}
	return strings.Join(append(parts, "seed", strconv.FormatUint(seed, 10)), " ")
}

// buildPolicy constructs the Router and Queue, flags over the
// --policy-config file (loaded by loadConfig, or here when it was not),
// and resolves the parameters they run with.
func buildPolicy(pf policyFlags, router string, seed uint64) (builtPolicy, error) {
	if pf.file == nil && pf.PolicyConfig != "" {
		if err := pf.loadConfig(func(string) bool { return true }, false); err != nil {
			return builtPolicy{}, err
		}
	}
	rp, qp, fromFile, err := policyParams(pf, router)
	if err != nil {
		return builtPolicy{}, err
	}
	b := builtPolicy{}
	if b.router, err = policies.NewRouter(router, rp, rand.New(rand.NewPCG(seed, 0x7261))); err != nil {
		return b, policyErr("--policy", pf, fromFile[0], err)
	}
	if b.queue, err = policies.NewQueue(pf.Queue, qp, rand.New(rand.NewPCG(seed, 0x7175))); err != nil {
		return b, policyErr("--queue", pf, fromFile[1], err)
	}
	if b.routerParams, err = policies.Resolve("router", router, rp); err != nil {
		return b, policyErr("--policy", pf, fromFile[0], err)
	}
	if b.queueParams, err = policies.Resolve("queue", pf.Queue, qp); err != nil {
		return b, policyErr("--queue", pf, fromFile[1], err)
	}
	return b, nil
}

func mergeKV(dst policies.Params, flag string, pairs []string) error {
	p, err := parseKV(flag, pairs)
	for k, v := range p {
		dst[k] = v
	}
	return err
}

// policyName is the Run's display name: router, plus +queue unless fcfs.
func policyName(router, queue string) string {
	if queue == "" || queue == "fcfs" {
		return router
	}
	return router + "+" + queue
}

// execute runs one Run and returns its Summary.
func execute(ctx context.Context, rs runSpec) (*reports.Summary, error) {
	src, err := openSource(rs.wf)
	if err != nil {
		return nil, err
	}
	defer src.close()
	pol, err := buildPolicy(rs.pf, rs.router, rs.wf.Seed)
	if err != nil {
		return nil, err
	}
	router, queue := pol.router, pol.queue
	var client *replay.Client
	if rs.sim > 0 {
		rs.backends, rs.mode = replay.SimBackendNames(rs.sim), "sim"
	} else if client, rs.cf.Model, err = newClient(ctx, rs.cf, rs.backends); err != nil {
		return nil, err
	} else {
		defer client.Close()
	}
	h := header(rs, src.ident, pol)
	w, err := replay.Create(rs.results, h)
	if err != nil {
		return nil, err
	}
	acc := reports.NewAccumulator(h, rs.ro)
	counters := &replay.Counters{}
	// The display goes on while in-flight requests drain after Ctrl-C.
	stopProgress := rs.progress(context.WithoutCancel(ctx), h.Policy, counters)
	rst := newRunStopper(ctx, acc.Add, rs.onResult)
	stop, runErr := rs.dispatch(rst.ctx, src, router, queue, client, w, rst.add, acc.AddEvent, counters)
	stopProgress()
	stop.Reason = rst.finish(ctx, stop.Reason)
	if rs.extra != nil {
		stop.Extra = replay.MergeExtra(stop.Extra, rs.extra())
	}
	if n := src.skipped(); n > 0 {
		stop.Extra = replay.MergeExtra(stop.Extra, map[string]float64{"skipped_records": float64(n)})
		if rs.errOut != nil {
			fmt.Fprintf(rs.errOut, "tracebench: skipped %s of %s\n", traces.MalformedText(n), rs.wf.Trace)
		}
	}
	if err := w.Close(stop); err != nil && runErr == nil {
		runErr = err
	}
	sum := acc.Finish(&stop)
	if runErr != nil {
		return sum, runErr
	}
	if stop.Reason == "interrupted" {
		return sum, ErrInterrupted
	}
	return sum, nil
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
	capacity := policies.Capacity{Requests: rs.pf.Capacity, Tokens: rs.pf.TokenBudget}
	if rs.sim > 0 {
		cfgs := make([]engine.Config, rs.sim)
		for i := range cfgs {
			cfgs[i] = rs.engines
			cfgs[i].Seed = rs.engines.Seed + int64(i)
		}
		return replay.Simulate(ctx, replay.SimOptions{Source: src, Router: r, Queue: q, Capacity: capacity,
			MaxInflight: rs.pf.MaxInflight, Engines: cfgs, Results: w, OnResult: add, OnEvent: event, Counters: c})
	}
	return replay.Run(ctx, replay.Options{Source: src, Router: r, Queue: q, Capacity: capacity,
		MaxInflight: rs.pf.MaxInflight, Backends: rs.backends, Client: client, Results: w,
		OnResult: add, OnEvent: event, Grace: rs.cf.Grace, ScrapeEvery: scrapeEvery(rs.cf), Counters: c})
}

func scrapeEvery(cf clientFlags) time.Duration {
	if !cf.Scrape {
		return 0
	}
	return cf.ScrapeInt
}

// progress starts the progress display on stderr unless quiet.
func (rs runSpec) progress(ctx context.Context, name string, c *replay.Counters) func() {
	if rs.quiet || rs.errOut == nil {
		return func() {}
	}
	tty := false
	if f, ok := rs.errOut.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return replay.ShowProgress(ctx, rs.errOut, tty, name, progressTotal(rs.wf), c, 5*time.Second)
}

// progressTotal is the number of Requests a Run replays, when known up
// front (0 otherwise): a generated workload's, counted by generating it
// once more (seeded, so the same Requests; a few milliseconds per
// thousand), which takes --duration and --shard into account; else
// --max-requests for an unsharded Run (a shorter trace ends sooner, and
// the display then ends at what was done).
func progressTotal(wf workloadFlags) int64 {
	if wf.Trace != "" {
		if wf.Shard != "" {
			return 0
		}
		return int64(wf.MaxRequests)
	}
	src, err := openSource(wf)
	if err != nil {
		return 0
	}
	defer src.close()
	var n int64
	for {
		if _, err := src.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				return 0
			}
			return n
		}
		n++
	}
}

// header builds the results file's run header: the policies with every
// parameter they ran with (defaults, preset, environment, file, flags),
// the model actually sent and the client settings, with the names of
// extra headers but never their values or the API key.
func header(rs runSpec, ident string, pol builtPolicy) replay.Header {
	r, q := pol.router, pol.queue
	return replay.Header{Version: replay.Version, Started: time.Now().UTC(), Policy: policyName(r.Name(), q.Name()),
		Router: r.Name(), RouterParams: pol.routerParams, Queue: q.Name(), QueueParams: pol.queueParams,
		Seed: rs.wf.Seed, Trace: ident, Mode: rs.mode, Backends: rs.backends, Shard: rs.wf.Shard,
		Config: map[string]any{"workload": rs.wf, "policy": rs.pf, "api": rs.cf.API, "model": rs.cf.Model,
			"stream": !rs.cf.NoStream, "scrape": rs.cf.Scrape, "scrape_interval": rs.cf.ScrapeInt.String(),
			"timeout": rs.cf.Timeout.String(), "grace": rs.cf.Grace.String(), "header_names": headerNames(rs.cf.Headers)}}
}

// headerNames returns the names of the --header flags, sorted.
func headerNames(hs []string) []string {
	names := []string{}
	for _, h := range hs {
		if k, _, ok := strings.Cut(h, ":"); ok {
			names = append(names, strings.TrimSpace(k))
		}
	}
	slices.Sort(names)
	return names
}

// newClient builds the HTTP client, checking every backend answers, and
// returns it with the model it sends: --model, else the first model the
// first backend's /v1/models lists.
func newClient(ctx context.Context, cf clientFlags, backends []string) (*replay.Client, string, error) {
	headers, err := parseHeaders(cf.Headers)
	if err != nil {
		return nil, "", err
	}
	c := replay.NewClient(replay.ClientOptions{API: cf.API, Model: cf.Model, APIKey: cf.apiKey(), Headers: headers,
		Stream: !cf.NoStream, ConnectTimeout: 5 * time.Second, FirstByteTimeout: cf.Timeout, IdleTimeout: cf.Timeout,
		TokenExact: true})
	model := cf.Model
	for _, b := range backends {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		models, err := replay.ListModels(pctx, c, b)
		cancel()
		if err != nil {
			return nil, "", fmt.Errorf("target %s: %w", b, err)
		}
		if model == "" && len(models) > 0 {
			model = models[0]
		}
	}
	if model != cf.Model {
		c.Close()
		cf.Model = model
		return newClient(ctx, cf, nil)
	}
	return c, model, nil
}

// resultsPath is dir/results-<policy>.jsonl.
func resultsPath(dir, policy string) string {
	return filepath.Join(dir, "results-"+policy+".jsonl")
}
