package bench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/verdict"
	"gonum.org/v1/gonum/stat"
)

// DecideSpec is `tracebench bench`'s default run, in two stages. Stage 1
// sweeps every router's capacity under the SLO (the highest offered rate
// at which Attainment of the requests meet it) in virtual time on Seeds
// seeds. Stage 2 runs the Leaders best of them and Baseline again in real
// time, on fresh in-process mock fleets on loopback, at the rate where the
// two leaders part, on the same seeds, all runs at once; the mock
// stretches model time so that the machine's share of work stays small
// (see TimeScale). The verdict is stage 1's, stage 2 confirms it.
type DecideSpec struct {
	// Base is every Run's Spec: workload (MaxRequests are the Requests of
	// every run), policy, client and report options. Router, Results,
	// Quiet, the fleet and the workload's rate are set per Run.
	Base Spec
	// Routers are the routers compared, in order (at least one; with one
	// there is nothing to decide: stage 1 measures its capacity and
	// stage 2 does not run); Baseline is always confirmed in stage 2
	// (default "round-robin" when it is one of Routers).
	Routers  []string
	Baseline string
	// Leaders is how many of stage 1's best policies stage 2 confirms
	// (default 2).
	Leaders int
	// ConfirmSeeds is the number of stage 2's seeds, the first of stage
	// 1's (default min(3, Seeds)): real-time runs cost the machine CPU,
	// virtual-time ones little.
	ConfirmSeeds int
	// Seeds is the number of seeds of stage 1 (default
	// DefaultDecideSeeds): the workload's and the engines' seeds shifted
	// by 0, 1, 2...
	Seeds int
	// Attainment is the SLA attainment a sustained rate keeps, a
	// fraction (default 0.9); Tolerance the search's final bracket, a
	// fraction (default 0.15).
	Attainment, Tolerance float64
	// Native is the workload's own rate, req/s (the search starts there;
	// 0: 1 req/s); Ident its identity.
	Native float64
	// Vary is what stage 1 searches: verdict.VaryRate ("", the offered
	// request rate, sessions open-loop) or verdict.VaryUsers (the most
	// concurrent closed-loop users, from 8; stage 2 confirms at a number
	// of users).
	Vary  string
	Ident string
	// Sim points a stage-1 Run at its simulated fleet (Spec.Sim and
	// Spec.Fleet), on seed K shifting the engines' seed by K.
	Sim func(ctx context.Context, s *Spec) (stop func(), err error)
	// SimFleet describes stage 1's fleet, for the report and the question.
	SimFleet string
	// Mock is stage 2's fleet, one per Run; its Server.TimeScale is set
	// by Decide.
	Mock MockFleet
	// ConfirmRequests is the Requests of every stage-2 Run, the first of
	// the workload's (default 300): a real-time mock fleet costs the
	// machine CPU per request, so stage 2 runs fewer than stage 1.
	ConfirmRequests int
	// ConfirmWall is the wall time a stage-2 Run should take (default
	// 25 s): the time scale is ConfirmWall over the Run's expected length
	// in model time (its Requests over the rate plus the leader's E2E p90
	// at its sustained rate), at least 1.
	ConfirmWall time.Duration
	// Jobs is how many policies stage 1 sweeps at once (0: GOMAXPROCS).
	Jobs int
	// ProfileNote states the expected prediction error of the engine
	// profile ("" for none).
	ProfileNote string
	// Out is the directory of the report (report.md and its files),
	// stage 1's sweep (Out/capacity) and stage 2's results files
	// (Out/confirm/seed-K).
	Out string
	// Distortion says why a Run's timings are not the servers' alone
	// (nil: metrics.Distortion, the report's warning thresholds).
	Distortion func(*metrics.Summary) string
	// ErrOut receives a line per stage and per stage-2 Run (nil: none).
	ErrOut io.Writer
}

// DefaultDecideSeeds is DecideSpec.Seeds' default, and `tracebench
// bench`'s without a backend flag: paired over 5 seeds, the Student-t
// interval is 2.78 standard errors wide each side against 4.30 over 3.
const DefaultDecideSeeds = 5

// DecideResult is what Decide measured.
type DecideResult struct {
	// Decision holds both stages, the verdict and their agreement.
	Decision *verdict.Decision
	// Runs are stage 2's first seed's Summaries, in the confirmed order.
	Runs []*metrics.Summary
	// Alone is the only router's capacity when Routers holds one (nil
	// otherwise).
	Alone *verdict.Alone
	// Report is the path of the report.md written, or with one router
	// of stage 1's sweep.md ("" when none was).
	Report string
}

// Decide runs spec's two stages and writes the report: report.md in
// spec.Out opening with the verdict and the decision, stage 2's first
// seed as its runs. With one router it runs stage 1 only and returns
// that router's capacity as Alone, its report stage 1's sweep.md. It
// returns what was measured, also on an error.
func Decide(ctx context.Context, spec DecideSpec) (*DecideResult, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return &DecideResult{}, err
	}
	d := &decider{s: spec, errOut: spec.ErrOut}
	if d.errOut == nil {
		d.errOut = io.Discard
	}
	res := &DecideResult{Decision: &verdict.Decision{Question: spec.question()}}
	err := d.stage1(ctx, res.Decision)
	switch {
	case err == nil && len(spec.Routers) == 1:
		res.Alone = verdict.NewAlone(d.order[0], d.sustained[d.order[0]])
		res.Report = filepath.Join(spec.Out, "capacity", "sweep.md")
	case err == nil:
		res.Runs, err = d.stage2(ctx, res.Decision)
	}
	res.Decision.Decide()
	if len(res.Runs) > 0 {
		o := reports.RenderOptions{Title: "tracebench bench", Verdict: res.Decision.CapacityVerdict, Decision: res.Decision}
		var werr error
		if res.Report, werr = writeRunsReport(spec.Out, res.Runs, o); werr != nil {
			return res, werr
		}
	}
	return res, interrupted(err)
}

// withDefaults fills spec's zero settings.
func (s DecideSpec) withDefaults() DecideSpec {
	if s.Leaders == 0 {
		s.Leaders = 2
	}
	if s.Seeds == 0 {
		s.Seeds = DefaultDecideSeeds
	}
	if s.Attainment == 0 {
		s.Attainment = 0.9
	}
	if s.ConfirmSeeds == 0 {
		s.ConfirmSeeds = min(3, s.Seeds)
	}
	if s.Tolerance == 0 {
		s.Tolerance = 0.15
	}
	if s.ConfirmRequests == 0 {
		s.ConfirmRequests = min(300, s.Base.Workload.MaxRequests)
	}
	if s.ConfirmWall == 0 {
		s.ConfirmWall = 25 * time.Second
	}
	if s.Jobs == 0 {
		s.Jobs = runtime.GOMAXPROCS(0)
	}
	if s.Baseline == "" && slices.Contains(s.Routers, "round-robin") {
		s.Baseline = "round-robin"
	}
	return s
}

// validate checks spec's own fields as UsageErrors naming them.
func (s DecideSpec) validate() error {
	switch {
	case len(s.Routers) < 1:
		return fieldf("DecideSpec.Routers", "DecideSpec.Routers: none, want at least 1")
	case s.Sim == nil:
		return fieldf("DecideSpec.Sim", "DecideSpec.Sim: nil, want the stage-1 simulated fleet's setup")
	case s.Leaders < 1:
		return fieldf("DecideSpec.Leaders", "DecideSpec.Leaders %d: want ≥ 1", s.Leaders)
	case s.Seeds < 1:
		return fieldf("DecideSpec.Seeds", "DecideSpec.Seeds %d: want ≥ 1", s.Seeds)
	case s.ConfirmSeeds < 1 || s.ConfirmSeeds > s.Seeds:
		return fieldf("DecideSpec.ConfirmSeeds", "DecideSpec.ConfirmSeeds %d: want 1 to Seeds (%d)", s.ConfirmSeeds, s.Seeds)
	case s.Base.Workload.MaxRequests < 1:
		return fieldf("Spec.Workload.MaxRequests", "Spec.Workload.MaxRequests %d: want the Requests of every run, ≥ 1",
			s.Base.Workload.MaxRequests)
	case s.Baseline != "" && !slices.Contains(s.Routers, s.Baseline):
		return fieldf("DecideSpec.Baseline", "DecideSpec.Baseline %q is not one of DecideSpec.Routers", s.Baseline)
	}
	return s.Mock.Validate()
}

// question states what the decision answers.
func (s DecideSpec) question() string {
	if s.users() {
		return fmt.Sprintf("which router serves the most concurrent closed-loop users with at least %.0f %% of requests "+
			"meeting %s, on %s (%d requests per run) and %s", 100*s.Attainment, metrics.SLOText(s.Base.Report.SLO),
			s.Ident, s.Base.Workload.MaxRequests, s.SimFleet)
	}
	if len(s.Routers) == 1 {
		return fmt.Sprintf("what request rate %s sustains with at least %.0f %% of requests meeting %s, on %s "+
			"(%d requests per run) and %s", PolicyName(s.Routers[0], s.Base.Policy.Queue), 100*s.Attainment,
			metrics.SLOText(s.Base.Report.SLO), s.Ident, s.Base.Workload.MaxRequests, s.SimFleet)
	}
	return fmt.Sprintf("which router sustains the highest request rate with at least %.0f %% of requests meeting %s, "+
		"on %s (%d requests per run) and %s", 100*s.Attainment, metrics.SLOText(s.Base.Report.SLO), s.Ident,
		s.Base.Workload.MaxRequests, s.SimFleet)
}

// users reports a decision over concurrent users.
func (s DecideSpec) users() bool { return s.Vary == verdict.VaryUsers }

// unit is what stage 1 counts: "req/s" or "users".
func (s DecideSpec) unit() string {
	if s.users() {
		return "users"
	}
	return "req/s"
}

// decider runs a decision.
type decider struct {
	s      DecideSpec
	errOut io.Writer
	// order is stage 1's policies in the order swept; sustained their
	// capacity on each seed, req/s.
	order     []string
	sustained map[string][]float64
}

// stage1 sweeps every router's capacity in virtual time on every seed
// (seed K into Out/capacity/seed-K, the first into Out/capacity) and sets
// d's Capacity (the first seed's sweep) and CapacityVerdict. A policy
// that met the SLA at every rate the search offered has no capacity the
// runs can measure: too few Requests per run to load the fleet, an error
// naming it.
func (dc *decider) stage1(ctx context.Context, d *verdict.Decision) error {
	s := dc.s
	start := time.Now()
	defer func() {
		d.Stage1 = time.Since(start)
		fmt.Fprintf(dc.errOut, "bench: stage 1 done in %.1f s\n", d.Stage1.Seconds())
	}()
	fmt.Fprintf(dc.errOut, "bench: stage 1, capacity of %d policies in virtual time on %d seeds (%s)\n",
		len(s.Routers), s.Seeds, s.SimFleet)
	sustained := map[string][]float64{}
	var order, unbounded []string
	for k := range s.Seeds {
		res, err := Sweep(ctx, dc.sweepSpec(k, sustained))
		if k == 0 {
			d.Capacity = res
		}
		if err != nil {
			return err
		}
		for _, p := range res.Policies {
			if k == 0 {
				order = append(order, p.Policy)
			}
			sustained[p.Policy] = append(sustained[p.Policy], p.Sustained)
			if p.Broken == 0 {
				unbounded = append(unbounded, fmt.Sprintf("%s (seed %d, every load up to %.3g %s)", p.Policy, k,
					p.Sustained, s.unit()))
			}
		}
	}
	if len(unbounded) > 0 {
		return fmt.Errorf("stage 1: %s met the SLA at every offered load: %d requests per run are too few to load "+
			"the fleet, so no capacity can be measured; give more Spec.Workload.MaxRequests", strings.Join(unbounded, ", "),
			s.Base.Workload.MaxRequests)
	}
	dc.order, dc.sustained = order, sustained
	if len(s.Routers) == 1 {
		return nil // nothing to decide between
	}
	d.CapacityVerdict = verdict.DecideSweepVerdict(&verdict.Sweep{Vary: dc.sweepSpec(0, nil).Vary, SLO: s.Base.Report.SLO},
		order, sustained)
	if d.CapacityVerdict == nil {
		return fmt.Errorf("stage 1: %d of %d policies swept, no verdict", len(order), len(s.Routers))
	}
	if s.Baseline != "" {
		d.CapacityVerdict.CompareBaseline(PolicyName(s.Baseline, s.Base.Policy.Queue), sustained)
	}
	d.CapacityVerdict.ProfileNote = s.ProfileNote
	return nil
}

// sweepSpec is stage 1's sweep of seed k. The first seed's search starts
// at the workload's own rate and grows 4× a step; later seeds start at
// the geometric mean of the capacities found so far and grow 2×, which
// saves a run or two per policy.
func (dc *decider) sweepSpec(k int, sustained map[string][]float64) SweepSpec {
	s := dc.s
	out := filepath.Join(s.Out, "capacity")
	if k > 0 {
		out = filepath.Join(out, "seed-"+strconv.Itoa(k))
	}
	sw := SweepSpec{Base: s.Base, Routers: s.Routers, Baseline: PolicyName(cmpOr(s.Baseline, s.Routers[0]), s.Base.Policy.Queue),
		Attainment: s.Attainment, Start: cmpOr(s.Native, 1), Growth: 4, Tolerance: s.Tolerance, MaxRuns: 12,
		Vary: verdict.VaryRate, Native: s.Native, Ident: s.Ident, Fleet: s.SimFleet, Jobs: s.Jobs, MaxErrorRate: 0.05,
		Out: out, Setup: s.Sim, Seeds: 1, ProfileNote: s.ProfileNote}
	sw.Base.Workload.Seed += uint64(k)
	if s.users() {
		sw.Vary, sw.Start = verdict.VaryUsers, defaultStartUsers
	}
	if g := geoMean(sustained); g > 0 {
		sw.Start, sw.Growth = g, 2
		if s.users() {
			sw.Start = math.Round(g)
		}
	}
	return sw
}

// defaultStartUsers is the first number of users a users search tries.
const defaultStartUsers = 8

// geoMean is the geometric mean of every positive value of m (0 when
// there is none), summed in key order so that the same values always
// give the same start rate.
func geoMean(m map[string][]float64) float64 {
	var xs []float64
	for _, k := range slices.Sorted(maps.Keys(m)) {
		for _, x := range m[k] {
			if x > 0 {
				xs = append(xs, x)
			}
		}
	}
	if len(xs) == 0 {
		return 0
	}
	return stat.GeometricMean(xs, nil)
}

// cmpOr is a unless it is the zero value, else b.
func cmpOr[T comparable](a, b T) T {
	var zero T
	if a == zero {
		return b
	}
	return a
}

// confirmed returns stage 1's Leaders best routers and the Baseline, best
// first (when the Baseline is one of the leaders, the next best joins, so
// that stage 2 always compares Leaders+1 policies when there are that
// many), and the rate in model time where the two best part
// (Verdict.PartingRate), whole users when the load is users.
func (dc *decider) confirmed(v *verdict.Verdict) ([]string, float64) {
	byName := map[string]string{}
	for _, r := range dc.s.Routers {
		byName[PolicyName(r, dc.s.Base.Policy.Queue)] = r
	}
	want := dc.s.Leaders
	if dc.s.Baseline != "" {
		want++
	}
	var out []string
	for _, row := range v.Rows {
		name := byName[row.Policy]
		if len(out) < want-1 || name == dc.s.Baseline || len(out) < want && slices.Contains(out, dc.s.Baseline) {
			out = append(out, name)
		}
	}
	rate := v.PartingRate()
	if dc.s.users() {
		rate = max(1, math.Round(rate))
	}
	return out, rate
}
