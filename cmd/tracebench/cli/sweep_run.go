package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
)

// sweeper runs a sweep: every policy's runs at the offered rates.
type sweeper struct {
	o      *sweepOptions
	ro     reports.Options
	errOut io.Writer
	// native is the workload's own rate (req/s; 0 when unknown) and
	// ident its identity.
	native float64
	ident  string
	// start is the search's first rate; ladder the fixed rates (nil for
	// a search), both in req/s.
	start  float64
	ladder []float64
	// runs counts the runs made over all policies (under mu: policies
	// may be swept side by side).
	mu   sync.Mutex
	runs int
	// sleep waits out the cool-down (ctx-aware; replaced in tests).
	sleep func(ctx context.Context, d time.Duration) error
}

// newSweeper measures the workload's own rate and resolves the rates.
func newSweeper(o *sweepOptions, ro reports.Options, errOut io.Writer) (*sweeper, error) {
	native, ident, err := nativeRate(o.wf)
	if err != nil {
		return nil, err
	}
	sw := &sweeper{o: o, ro: ro, errOut: errOut, native: native, ident: ident, sleep: sleepCtx}
	if o.vary == reports.VaryTimeScale && !(native > 0) {
		return nil, usagef("--vary time-scale: the workload's arrivals span no time, so it has no rate to scale; use --vary rate")
	}
	if o.rates != "" {
		sw.ladder, err = parseLadder(o.rates, native)
		return sw, err
	}
	sw.start = 1
	if native > 0 {
		sw.start = native
	}
	if o.startRate != "" {
		spec, err := parseRateSpec("start-rate", o.startRate)
		if err != nil {
			return nil, err
		}
		if sw.start, err = spec.resolve("start-rate", native); err != nil {
			return nil, err
		}
	}
	return sw, nil
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// run sweeps each policy in turn and returns what was measured, also
// when a run fails or is interrupted (with that error).
func (sw *sweeper) run(ctx context.Context, routers []string, baseline string) (*reports.Sweep, error) {
	res := sw.header(baseline)
	if err := os.MkdirAll(filepath.Join(sw.o.out, "runs"), 0o755); err != nil {
		return res, fmt.Errorf("--out %s: %w", sw.o.out, err)
	}
	if jobs := sw.o.sweepJobs(len(routers)); jobs > 1 {
		return sw.runSideBySide(ctx, res, routers, jobs)
	}
	for _, r := range routers {
		p, err := sw.policy(ctx, r)
		if len(p.Steps) > 0 {
			res.Policies = append(res.Policies, p)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// runSideBySide sweeps the policies jobs at a time (each search is
// sequential, the policies independent) and adds them to res in the
// order given, whatever order they finish in.
func (sw *sweeper) runSideBySide(ctx context.Context, res *reports.Sweep, routers []string, jobs int) (*reports.Sweep, error) {
	ps := make([]reports.SweepPolicy, len(routers))
	errs := make([]error, len(routers))
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	for i, r := range routers {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ps[i], errs[i] = sw.policy(ctx, r)
		}()
	}
	wg.Wait()
	for _, p := range ps {
		if len(p.Steps) > 0 {
			res.Policies = append(res.Policies, p)
		}
	}
	return res, firstError(errs)
}

// header describes the sweep before any run.
func (sw *sweeper) header(baseline string) *reports.Sweep {
	o := sw.o
	s := &reports.Sweep{Title: "tracebench sweep", Workload: sw.ident, Fleet: sw.fleet(), Method: reports.SweepSearch,
		Vary: o.vary, Arrival: o.wf.Arrival, NativeRate: sw.native, Requests: o.wf.MaxRequests, Target: o.attainment,
		MaxErrorRate: o.maxErrorRate, SLO: sw.ro.SLO, Warmup: sw.ro.Warmup, Baseline: baseline}
	if sw.ladder != nil {
		s.Method, s.Rates = reports.SweepLadder, sw.ladder
	} else {
		s.Start, s.Growth, s.Tolerance, s.MaxRuns = sw.start, o.growth, o.tolerance, o.maxRuns
	}
	return s
}

// fleet describes where the runs go.
func (sw *sweeper) fleet() string {
	m := sw.o.mf
	preset, err := m.profileName()
	if err != nil {
		preset = m.Profile
	}
	switch {
	case sw.o.live():
		return "live targets " + strings.Join(sw.o.targets, ", ")
	case m.Sim > 0:
		return fmt.Sprintf("%d simulated mock engines in virtual time (profile %s)", m.Sim, preset)
	}
	return fmt.Sprintf("%d in-process mock replicas, a fresh fleet per run (profile %s)", m.Replicas, preset)
}

// policy runs one policy's search or ladder.
func (sw *sweeper) policy(ctx context.Context, router string) (reports.SweepPolicy, error) {
	p := reports.SweepPolicy{Policy: policyName(router, sw.o.pf.Queue)}
	errStop := 0.0
	eval := func(rate float64) (float64, error) {
		st, cut, err := sw.step(ctx, router, p.Policy, rate)
		if err != nil {
			return 0, err
		}
		p.Steps = append(p.Steps, st)
		sw.report(p.Policy, len(p.Steps), st, cut)
		if cut != nil || st.Summary.ErrorRate > sw.o.maxErrorRate {
			errStop = rate
			p.Stopped = sw.errorStop(rate, st.Summary, cut)
			return st.Summary.SLA.Attainment, replay.ErrStopSearch
		}
		return st.Summary.SLA.Attainment, nil
	}
	res, err := sw.search(eval)
	p.Sustained, p.Broken = res.Sustained, res.Broken
	if errStop > 0 && (p.Broken == 0 || errStop < p.Broken) {
		p.Broken = errStop
	}
	// A ladder's resolution is its steps; a search converges when its
	// bracket (with an error stop as its failing end) is within tolerance.
	p.Converged = sw.ladder != nil || p.Sustained > 0 && p.Broken > 0 && p.Broken/p.Sustained <= 1+sw.o.tolerance
	if !p.Converged && p.Stopped == "" && err == nil {
		p.Stopped = sw.unconverged(p)
	}
	return p, err
}

// search runs the ladder or the search over eval.
func (sw *sweeper) search(eval func(float64) (float64, error)) (replay.SearchResult, error) {
	if sw.ladder != nil {
		res, err := replay.Ladder(eval, sw.ladder, sw.o.attainment)
		if errors.Is(err, replay.ErrStopSearch) {
			err = nil
		}
		return res, err
	}
	return replay.FindSustainedRate(eval, replay.SearchOptions{Target: sw.o.attainment, Start: sw.start,
		Growth: sw.o.growth, Tolerance: sw.o.tolerance, MaxRuns: sw.o.maxRuns})
}

// unconverged says why a search ended before narrowing to the tolerance.
func (sw *sweeper) unconverged(p reports.SweepPolicy) string {
	switch {
	case len(p.Steps) >= sw.o.maxRuns:
		return fmt.Sprintf("all %d runs of --max-runs used before the bracket narrowed to --tolerance", sw.o.maxRuns)
	case p.Sustained == 0:
		return "no rate passed, down to the search's lowest rate"
	}
	return "every rate passed, up to the search's highest rate"
}

// step makes one run of router at rate after the cool-down, and reads
// back which bounds its requests missed. The run stops early when its
// error rate passes --max-error-rate (errorLimit); the limit is then
// returned, else nil.
func (sw *sweeper) step(ctx context.Context, router, policy string, rate float64) (reports.SweepStep, *errorLimit, error) {
	sw.mu.Lock()
	first := sw.runs == 0
	sw.runs++
	sw.mu.Unlock()
	if !first && sw.o.cooldown > 0 {
		if err := sw.sleep(ctx, sw.o.cooldown); err != nil {
			return reports.SweepStep{}, nil, ErrInterrupted
		}
	}
	rel := filepath.Join("runs", policy+"-r"+strconv.FormatFloat(rate, 'g', 6, 64)+".jsonl")
	lim := &errorLimit{max: sw.o.maxErrorRate}
	rs := runSpec{wf: sw.o.wf, pf: sw.o.pf, cf: sw.o.cf, ro: sw.ro, router: router, onResult: lim.check,
		results: filepath.Join(sw.o.out, rel), errOut: sw.errOut, quiet: sw.o.mf.Sim > 0 && !sw.o.live()}
	sw.setRate(&rs.wf, rate)
	stop, err := sw.o.mf.backends(ctx, &rs, sw.o.targets)
	if err != nil {
		return reports.SweepStep{}, nil, err
	}
	defer stop()
	sum, err := execute(ctx, rs)
	if err != nil {
		return reports.SweepStep{}, nil, err
	}
	m, err := reports.CountMisses(rs.results, sw.ro)
	if err != nil {
		return reports.SweepStep{}, nil, err
	}
	if sum.Stop == nil || sum.Stop.Reason != replay.StopErrorLimit {
		lim = nil
	}
	pass := passes(sum, lim != nil, sw.o.attainment, sw.o.maxErrorRate)
	return reports.SweepStep{Rate: rate, Pass: pass, Summary: sum, Misses: m, Results: filepath.ToSlash(rel)}, lim, nil
}

// passes reports whether a run sustained its rate: its SLA attainment
// is at least target (a fraction) and its error rate at most
// maxErrorRate (a fraction), and the error limit did not cut it short.
// A run over the error limit fails however well its other requests
// did, so a fleet is never pushed past it.
func passes(sum *reports.Summary, cut bool, target, maxErrorRate float64) bool {
	return !cut && sum.SLA.Attainment >= target && !(sum.ErrorRate > maxErrorRate)
}

// errorStop says why a policy's sweep stopped on errors at rate: the
// run's error rate, or where the limit cut the run short (cut non-nil).
func (sw *sweeper) errorStop(rate float64, sum *reports.Summary, cut *errorLimit) string {
	if cut == nil {
		return fmt.Sprintf("error rate %.1f %% at %.4g req/s exceeds --max-error-rate %.1f %%",
			100*sum.ErrorRate, rate, 100*sw.o.maxErrorRate)
	}
	return fmt.Sprintf("broke on errors: error rate %.1f %% over the first %d results at %.4g req/s exceeded "+
		"--max-error-rate %.1f %%, so the run was cut short there (stop reason %s; %d of %s requests replayed)",
		100*cut.tripped, cut.at, rate, 100*sw.o.maxErrorRate, replay.StopErrorLimit, sum.Requests+sum.WarmupSkipped,
		sw.planned())
}

// planned is the number of Requests a run would send, as text ("all"
// when --max-requests is 0).
func (sw *sweeper) planned() string {
	if n := sw.o.wf.MaxRequests; n > 0 {
		return strconv.Itoa(n)
	}
	return "all"
}

// setRate makes wf offer rate: a --rate process, or the trace's times
// divided by rate / native.
func (sw *sweeper) setRate(wf *workloadFlags, rate float64) {
	if sw.o.vary == reports.VaryTimeScale {
		wf.Rate, wf.TimeScale = 0, sw.native/rate
		return
	}
	wf.Rate, wf.TimeScale = rate, 1
}

// report prints one line per run on errOut.
func (sw *sweeper) report(policy string, n int, st reports.SweepStep, cut *errorLimit) {
	if sw.errOut == nil {
		return
	}
	verdict := "fail"
	switch {
	case cut != nil:
		verdict = fmt.Sprintf("fail, stopped after %d results on --max-error-rate", cut.at)
	case st.Pass:
		verdict = "pass"
	}
	fmt.Fprintf(sw.errOut, "sweep %s run %d: %.4g req/s, SLA met %.1f %%, error rate %.1f %%: %s\n", policy, n,
		st.Rate, 100*st.Summary.SLA.Attainment, 100*st.Summary.ErrorRate, verdict)
}
