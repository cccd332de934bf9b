package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/search"
	"github.com/tracebench/tracebench/verdict"
)

// SweepSpec is a capacity sweep: every router's Runs at a series of
// offered rates, a fixed ladder or a search, each Run judged by its SLA
// attainment (`tracebench sweep`, docs/sweep.md).
type SweepSpec struct {
	// Base is every Run's Spec: workload, policy, client, report options
	// and, with Sim, the simulated fleet. Policy.Router, Results, OnResult, Quiet
	// and the workload's rate are set per Run.
	Base Spec
	// Routers are the routers swept, in order; Baseline is the display
	// name of the policy the gains are measured against.
	Routers  []string
	Baseline string
	// Attainment is the SLA attainment a sustained rate keeps, in (0, 1]
	// (the CLI's default 0.9).
	Attainment float64
	// Ladder is the fixed series of rates in req/s; nil runs the search
	// from Start req/s, multiplying by Growth until a Run fails, then
	// bisecting to Tolerance (a fraction), in at most MaxRuns Runs.
	Ladder    []float64
	Start     float64
	Growth    float64
	Tolerance float64
	MaxRuns   int
	// Vary sets how a rate is offered (verdict.VaryUsers: the "rates" are
	// numbers of closed-loop users): verdict.VaryRate (Base.Workload's
	// arrival process at the rate) or verdict.VaryTimeScale (the trace's
	// times divided by rate / Native).
	Vary string
	// Native is the workload's own rate in req/s (0 when unknown) and
	// Ident its identity, as NativeRate measures them.
	Native float64
	Ident  string
	// Fleet describes where the Runs go, for the report.
	Fleet string
	// Jobs is how many routers are swept at once (each search is
	// sequential; 0 or 1: one at a time). Only virtual-time Runs should go
	// side by side.
	Jobs int
	// Cooldown is the pause between Runs (none before the first).
	Cooldown time.Duration
	// MaxErrorRate stops a Run, and its router's sweep, as soon as its
	// error rate exceeds it (a fraction, from the Run's 20th Result on).
	MaxErrorRate float64
	// Out is the directory of the Runs' results files (Out/runs/).
	Out string
	// Setup, when set, points each Run's Spec at its fleet (a fresh mock
	// fleet, live targets) and returns the func that releases it; nil
	// runs Base's fleet as it is (Sim). On seed K the Spec's
	// Workload.Seed is Base's plus K, and the fleet's seed should follow.
	Setup func(ctx context.Context, s *Spec) (stop func(), err error)
	// Sleep waits out the cool-down (nil: a timer ended early by ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Seeds sweeps every router again on Seeds−1 more seeds (the
	// workload's and the engines' seeds shifted by 1, 2...) for a capacity
	// verdict with a confidence interval (0 or 1: one seed).
	Seeds int
	// ProfileNote states the expected prediction error of the engine
	// profile, for the verdict ("" for none).
	ProfileNote string
	// ErrOut receives one line per Run (nil: none).
	ErrOut io.Writer
}

// Sweep runs spec's sweep on every seed (Seeds) and returns what was
// measured, also when a Run fails or is interrupted (with that error:
// ErrInterrupted for an interrupt). It writes every Run's results file
// under spec.Out/runs/ (spec.Out/seed-K/runs/ for seed K), and, when any
// Run finished, the report: sweep.md, sweep.csv and the capacity plot in
// spec.Out, as `tracebench sweep` does. A bad setting is a UsageError
// naming its field (see SweepSpec.Validate), with nothing run.
func Sweep(ctx context.Context, spec SweepSpec) (*verdict.Sweep, error) {
	if err := spec.Validate(); err != nil {
		return &verdict.Sweep{}, err
	}
	res, runErr := newSweeper(&spec).run(ctx)
	if runErr == nil {
		res.Verdict, runErr = sweepSeeds(ctx, spec, res)
	}
	if len(res.Policies) > 0 {
		if err := reports.WriteSweepDir(spec.Out, res); err != nil && runErr == nil {
			runErr = fmt.Errorf("write sweep report: %w", err)
		}
	}
	return res, runErr
}

// newSweeper prepares the sweep of spec.
func newSweeper(spec *SweepSpec) *sweeper {
	sw := &sweeper{s: spec, sleep: spec.Sleep}
	if sw.sleep == nil {
		sw.sleep = sleepCtx
	}
	return sw
}

// sweeper runs a sweep: every policy's runs at the offered rates.
type sweeper struct {
	s *SweepSpec
	// runs counts the runs made over all policies (under mu: policies
	// may be swept side by side).
	mu   sync.Mutex
	runs int
	// sleep waits out the cool-down.
	sleep func(ctx context.Context, d time.Duration) error
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
func (sw *sweeper) run(ctx context.Context) (*verdict.Sweep, error) {
	routers, baseline := sw.s.Routers, sw.s.Baseline
	res := sw.header(baseline)
	if err := os.MkdirAll(filepath.Join(sw.s.Out, "runs"), 0o755); err != nil {
		return res, fmt.Errorf("SweepSpec.Out %s: %w", sw.s.Out, err)
	}
	if jobs := min(sw.s.Jobs, len(routers)); jobs > 1 {
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
func (sw *sweeper) runSideBySide(ctx context.Context, res *verdict.Sweep, routers []string, jobs int) (*verdict.Sweep, error) {
	ps := make([]verdict.SweepPolicy, len(routers))
	err := Each(len(routers), jobs, func(i int) error {
		var err error
		ps[i], err = sw.policy(ctx, routers[i])
		return err
	})
	for _, p := range ps {
		if len(p.Steps) > 0 {
			res.Policies = append(res.Policies, p)
		}
	}
	return res, err
}

// header describes the sweep before any run.
func (sw *sweeper) header(baseline string) *verdict.Sweep {
	o := sw.s
	s := &verdict.Sweep{Title: "tracebench sweep", Workload: o.Ident, Fleet: o.Fleet, Method: verdict.SweepSearch,
		Vary: o.Vary, Arrival: o.Base.Workload.Arrival, NativeRate: o.Native, Requests: o.Base.Workload.MaxRequests,
		Target: o.Attainment, MaxErrorRate: o.MaxErrorRate, SLO: o.Base.Report.SLO, Warmup: o.Base.Report.Warmup,
		Baseline: baseline}
	if o.Ladder != nil {
		s.Method, s.Rates = verdict.SweepLadder, o.Ladder
	} else {
		s.Start, s.Growth, s.Tolerance, s.MaxRuns = o.Start, o.Growth, o.Tolerance, o.MaxRuns
	}
	return s
}

// policy runs one policy's search or ladder.
func (sw *sweeper) policy(ctx context.Context, router string) (verdict.SweepPolicy, error) {
	p := verdict.SweepPolicy{Policy: PolicyName(router, sw.s.Base.Policy.Queue)}
	errStop := 0.0
	eval := func(rate float64) (float64, error) {
		st, cut, err := sw.step(ctx, router, p.Policy, rate)
		if err != nil {
			return 0, err
		}
		p.Steps = append(p.Steps, st)
		sw.report(p.Policy, len(p.Steps), st, cut)
		if cut != nil || st.Summary.ErrorRate > sw.s.MaxErrorRate {
			errStop = rate
			p.Stopped = sw.errorStop(rate, st.Summary, cut)
			return st.Summary.SLA.Attainment, search.ErrStop
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
	p.Converged = sw.s.Ladder != nil || p.Sustained > 0 && p.Broken > 0 && (p.Broken/p.Sustained <= 1+sw.s.Tolerance ||
		sw.s.Vary == verdict.VaryUsers && p.Broken-p.Sustained <= 1)
	if !p.Converged && p.Stopped == "" && err == nil {
		p.Stopped = sw.unconverged(p)
	}
	return p, err
}

// search runs the ladder or the search over eval.
func (sw *sweeper) search(eval func(float64) (float64, error)) (search.Result, error) {
	if sw.s.Ladder != nil {
		res, err := search.Ladder(eval, sw.s.Ladder, sw.s.Attainment)
		if errors.Is(err, search.ErrStop) {
			err = nil
		}
		return res, err
	}
	o := search.Options{Target: sw.s.Attainment, Start: sw.s.Start,
		Growth: sw.s.Growth, Tolerance: sw.s.Tolerance, MaxRuns: sw.s.MaxRuns}
	if sw.s.Vary == verdict.VaryUsers {
		o.Step, o.MinRate = 1, 1
	}
	return search.FindSustainedRate(eval, o)
}

// unconverged says why a search ended before narrowing to the tolerance.
func (sw *sweeper) unconverged(p verdict.SweepPolicy) string {
	switch {
	case len(p.Steps) >= sw.s.MaxRuns:
		return fmt.Sprintf("all %d runs of --max-runs used before the bracket narrowed to --tolerance", sw.s.MaxRuns)
	case p.Sustained == 0:
		return "no rate passed, down to the search's lowest rate"
	}
	return "every rate passed, up to the search's highest rate"
}

// step makes one run of router at rate after the cool-down, and reads
// back which bounds its requests missed. The run stops early when its
// error rate passes --max-error-rate (errorLimit); the limit is then
// returned, else nil.
func (sw *sweeper) step(ctx context.Context, router, policy string, rate float64) (verdict.SweepStep, *errorLimit, error) {
	sw.mu.Lock()
	first := sw.runs == 0
	sw.runs++
	sw.mu.Unlock()
	if !first && sw.s.Cooldown > 0 {
		if err := sw.sleep(ctx, sw.s.Cooldown); err != nil {
			return verdict.SweepStep{}, nil, ErrInterrupted
		}
	}
	rel := filepath.Join("runs", policy+"-r"+strconv.FormatFloat(rate, 'g', 6, 64)+".jsonl")
	lim := &errorLimit{max: sw.s.MaxErrorRate}
	rs := sw.s.Base
	rs.Policy.Router, rs.OnResult, rs.Results = router, lim.check, filepath.Join(sw.s.Out, rel)
	sw.setRate(&rs.Workload, rate)
	if sw.s.Setup != nil {
		stop, err := sw.s.Setup(ctx, &rs)
		if err != nil {
			return verdict.SweepStep{}, nil, err
		}
		defer stop()
	}
	// Virtual-time runs take moments: no progress display.
	rs.Quiet = rs.Quiet || rs.Sim > 0
	sum, err := Run(ctx, rs)
	if err != nil {
		return verdict.SweepStep{}, nil, err
	}
	m, err := verdict.CountMisses(rs.Results, rs.Report)
	if err != nil {
		return verdict.SweepStep{}, nil, err
	}
	if sum.Stop == nil || sum.Stop.Reason != results.StopErrorLimit {
		lim = nil
	}
	pass := passes(sum, lim != nil, sw.s.Attainment, sw.s.MaxErrorRate)
	return verdict.SweepStep{Rate: rate, Pass: pass, Summary: sum, Misses: m, Results: filepath.ToSlash(rel)}, lim, nil
}

// passes reports whether a run sustained its rate: its SLA attainment
// is at least target (a fraction) and its error rate at most
// maxErrorRate (a fraction), and the error limit did not cut it short.
// A run over the error limit fails however well its other requests
// did, so a fleet is never pushed past it.
func passes(sum *metrics.Summary, cut bool, target, maxErrorRate float64) bool {
	return !cut && sum.SLA.Attainment >= target && !(sum.ErrorRate > maxErrorRate)
}

// errorStop says why a policy's sweep stopped on errors at rate: the
// run's error rate, or where the limit cut the run short (cut non-nil).
func (sw *sweeper) errorStop(rate float64, sum *metrics.Summary, cut *errorLimit) string {
	if cut == nil {
		return fmt.Sprintf("error rate %.1f %% at %.4g req/s exceeds --max-error-rate %.1f %%",
			100*sum.ErrorRate, rate, 100*sw.s.MaxErrorRate)
	}
	return fmt.Sprintf("broke on errors: error rate %.1f %% over the first %d results at %.4g req/s exceeded "+
		"--max-error-rate %.1f %%, so the run was cut short there (stop reason %s; %d of %s requests replayed)",
		100*cut.tripped, cut.at, rate, 100*sw.s.MaxErrorRate, results.StopErrorLimit, sum.Requests+sum.WarmupSkipped,
		sw.planned())
}

// planned is the number of Requests a run would send, as text ("all"
// when --max-requests is 0).
func (sw *sweeper) planned() string {
	if n := sw.s.Base.Workload.MaxRequests; n > 0 {
		return strconv.Itoa(n)
	}
	return "all"
}

// setRate makes wf offer rate: a --rate process, or the trace's times
// divided by rate / native; over users, rate closed-loop users.
func (sw *sweeper) setRate(wf *Workload, rate float64) {
	if sw.s.Vary == verdict.VaryUsers {
		wf.Sessions.Pacing, wf.Sessions.Users = string(replay.SessionsClosed), int(math.Round(rate))
		wf.Rate, wf.TimeScale = 0, 1
		return
	}
	wf.Sessions.Pacing = cmp.Or(wf.Sessions.Pacing, string(replay.SessionsOpen))
	if sw.s.Vary == verdict.VaryTimeScale {
		wf.Rate, wf.TimeScale = 0, sw.s.Native/rate
		return
	}
	wf.Rate, wf.TimeScale = rate, 1
}

// report prints one line per run on errOut.
func (sw *sweeper) report(policy string, n int, st verdict.SweepStep, cut *errorLimit) {
	if sw.s.ErrOut == nil {
		return
	}
	verdict := "fail"
	switch {
	case cut != nil:
		verdict = fmt.Sprintf("fail, stopped after %d results on --max-error-rate", cut.at)
	case st.Pass:
		verdict = "pass"
	}
	fmt.Fprintf(sw.s.ErrOut, "sweep %s run %d: %.4g %s, SLA met %.1f %%, error rate %.1f %%: %s\n", policy, n,
		st.Rate, sw.unit(), 100*st.Summary.SLA.Attainment, 100*st.Summary.ErrorRate, verdict)
}

// unit is what the swept value counts: "req/s", or "users".
func (sw *sweeper) unit() string {
	if sw.s.Vary == verdict.VaryUsers {
		return "users"
	}
	return "req/s"
}
