package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// CompareSpec compares routers on one workload: one Run per router,
// each on a fresh fleet (cold caches), side by side where that keeps the
// timings honest, as `tracebench bench` does.
type CompareSpec struct {
	// Base is every Run's Spec: workload, policy (its queue and
	// parameters), client, report options and, with Sim, the simulated
	// fleet. Policy.Router, Results and Quiet are set per Run.
	Base Spec
	// Routers are the routers compared, in order (nil: every registered
	// router, policies.Names(policies.KindRouter)).
	Routers []string
	// Out is the directory of the results files (Out/results-POLICY.jsonl)
	// and the report (report.md, summary.csv, summary.json, plots); seed K
	// writes its results files into Out/seed-K.
	Out string
	// Jobs is how many Runs go at once, each on its own fleet (0:
	// automatic: every router on mock fleets, GOMAXPROCS with Base.Sim,
	// one with Targets). Runs side by side on mock fleets are checked for
	// distortion and run again when the machine distorted them.
	Jobs int
	// Setup, when set, points each Run's Spec at its fleet and returns
	// the func that releases it: MockFleet.Setup gives each Run a fresh
	// mock fleet. nil runs Base as it is (Base.Sim, or Base.Backends, or
	// Targets). On seed K the Spec's Workload.Seed is Base's plus K, and
	// the fleet's seed should follow.
	Setup func(ctx context.Context, s *Spec) (stop func(), err error)
	// Targets are live servers every Run shares, one Run at a time.
	// Compare resolves their dialect and empties their prefix caches
	// before each router where the dialect can (else it rotates the
	// routers' order by the workload seed and every Run's header says the
	// caches persisted), and first probes their speed, warning on ErrOut
	// when the workload will overload them. Without Setup the Runs go to
	// them as Base.Backends.
	Targets []string
	// Seeds runs every router again on Seeds−1 more seeds (the workload's
	// and the engines' seeds shifted by 1, 2...) for a verdict with a
	// confidence interval (0 or 1: one seed, and no verdict).
	Seeds int
	// ProfileNote states the expected prediction error of the engine
	// profile, for the verdict ("" for none).
	ProfileNote string
	// Distortion says why a Run's timings are not the servers' alone, ""
	// when they are (nil: metrics.Distortion, the report's warning
	// thresholds on client schedule lag and mock step lateness).
	Distortion func(*metrics.Summary) string
	// ErrOut receives a line per Run finished side by side, the retries
	// and the live plan's notes (nil: none).
	ErrOut io.Writer
}

// CompareResult is what a comparison measured.
type CompareResult struct {
	// Routers are the routers in the order they ran (Targets may rotate
	// them); Runs their first seed's Summaries in that order, those that
	// produced none left out.
	Routers []string
	Runs    []*metrics.Summary
	// Verdict compares the routers over every seed (nil with one router,
	// or when a Run failed).
	Verdict *verdict.Verdict
	// Report is the path of the report.md written ("" when none was).
	Report string
}

// Compare runs spec's routers and returns what was measured, also when a
// Run fails or is interrupted (with that error: ErrInterrupted for an
// interrupt). It writes every Run's results file into spec.Out and, when
// any Run finished, the report: report.md (opening with the verdict),
// summary.csv, summary.json and plots, as `tracebench bench` does.
func Compare(ctx context.Context, spec CompareSpec) (*CompareResult, error) {
	c, err := newComparer(ctx, spec)
	if err != nil {
		return &CompareResult{}, err
	}
	defer c.live.close()
	res := &CompareResult{Routers: c.routers}
	res.Runs, err = c.all(ctx, c.spec)
	if err == nil || errors.Is(err, ErrInterrupted) {
		res.Verdict, err = c.verdict(ctx, res.Runs)
		c.live.annotate(res.Verdict)
		if err == nil {
			err = ctx.Err()
		}
	}
	if len(res.Runs) > 0 {
		var werr error
		if res.Report, werr = writeRunsReport(spec.Out, res.Runs, reports.RenderOptions{Verdict: res.Verdict}); werr != nil {
			return res, werr
		}
	}
	return res, interrupted(err)
}

// comparer runs a comparison.
type comparer struct {
	spec    CompareSpec
	routers []string
	// live is the plan against Targets (nil otherwise).
	live *liveBench
	// errOut is spec.ErrOut, io.Discard when nil.
	errOut io.Writer
	// distortion is spec.Distortion or metrics.Distortion.
	distortion func(*metrics.Summary) string
}

// newComparer checks spec, creates its Out and, with Targets, plans the
// live comparison.
func newComparer(ctx context.Context, spec CompareSpec) (*comparer, error) {
	c := &comparer{spec: spec, routers: spec.Routers, errOut: spec.ErrOut, distortion: spec.Distortion}
	if c.errOut == nil {
		c.errOut = io.Discard
	}
	if c.distortion == nil {
		c.distortion = metrics.Distortion
	}
	if c.routers == nil {
		c.routers = policies.Names(policies.KindRouter)
	}
	if err := checkCompare(spec, c.routers); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(spec.Out, 0o755); err != nil {
		return nil, fmt.Errorf("CompareSpec.Out %s: %w", spec.Out, err)
	}
	if len(spec.Targets) == 0 {
		return c, nil
	}
	var err error
	c.live, c.routers, err = prepareLive(ctx, &c.spec, c.routers, c.errOut)
	return c, err
}

// checkCompare validates spec's own fields as UsageErrors naming them.
func checkCompare(spec CompareSpec, routers []string) error {
	for _, r := range routers {
		if _, err := policies.Lookup(policies.KindRouter, r); err != nil {
			return fieldf("CompareSpec.Routers", "CompareSpec.Routers: %v", err)
		}
	}
	switch {
	case len(routers) == 0:
		return fieldf("CompareSpec.Routers", "CompareSpec.Routers: none to compare")
	case spec.Jobs < 0:
		return fieldf("CompareSpec.Jobs", "CompareSpec.Jobs %d: want 0 (automatic) or more", spec.Jobs)
	case spec.Seeds < 0:
		return fieldf("CompareSpec.Seeds", "CompareSpec.Seeds %d: want ≥ 1 (0: 1)", spec.Seeds)
	case len(spec.Targets) > 0 && spec.Base.Sim > 0:
		return fieldf("CompareSpec.Targets", "Spec.Sim and CompareSpec.Targets are exclusive")
	case spec.Jobs > 1 && len(spec.Targets) > 0:
		return fieldf("CompareSpec.Jobs", "CompareSpec.Jobs %d: runs against CompareSpec.Targets share its servers, "+
			"so they go one at a time", spec.Jobs)
	}
	return spec.Base.Policy.CheckConfigRouter(routers)
}

// jobs is how many of n Runs go at once: Jobs when set; else all of
// them, each on its own mock fleet (a mock replica uses a small share of
// a core at bench's rates); GOMAXPROCS with Sim (a simulation keeps one
// core busy); one against Targets, whose servers every Run shares.
func (c *comparer) jobs(n int) int {
	switch {
	case c.spec.Jobs > 0:
		return min(c.spec.Jobs, n)
	case len(c.spec.Targets) > 0:
		return 1
	case c.spec.Base.Sim > 0:
		return min(runtime.GOMAXPROCS(0), n)
	}
	return n
}

// sideBySideChecked reports whether Runs made side by side are checked
// for distortion: real-time Runs on fleets of their own.
func (c *comparer) sideBySideChecked() bool {
	return len(c.spec.Targets) == 0 && c.spec.Base.Sim == 0
}

// one runs router on a fresh fleet (Setup's, or Base's) with spec's
// settings; quiet turns its progress display off (for Runs side by
// side).
func (c *comparer) one(ctx context.Context, spec CompareSpec, router string, quiet bool) (*metrics.Summary, error) {
	rs := spec.Base
	rs.Policy.Router, rs.Quiet = router, rs.Quiet || quiet
	rs.Results = ResultsPath(spec.Out, PolicyName(router, rs.Policy.Queue))
	if spec.Setup != nil {
		stop, err := spec.Setup(ctx, &rs)
		if err != nil {
			return nil, err
		}
		defer stop()
	} else if len(spec.Targets) > 0 {
		rs.Backends, rs.Mode = spec.Targets, results.ModeTarget
	}
	c.live.before(ctx, &rs, router)
	return Run(ctx, rs)
}
