// Package plan sizes a fleet: for each router, the fewest simulated
// replicas that serve a target rate or number of users under the SLO,
// found by running bench Specs in virtual time (`tracebench plan`,
// docs/plan.md), and the check of one answer on a real-time mock fleet.
package plan

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
)

// Spec asks how many replicas each router needs to serve a target
// load under the SLO (`tracebench plan`, docs/plan.md). Every Run is
// simulated in virtual time.
type Spec struct {
	// Base is every Run's Spec: the workload, the policy (Router set per
	// Run), the report options (SLO and price) and Fleet, the engine
	// configuration each simulated replica runs (nil: the default). Sim,
	// Results and the load are set per Run.
	Base bench.Spec
	// Routers are the routers planned, in order.
	Routers []string
	// Rate is the target in req/s, or Users the target in concurrent
	// closed-loop users: exactly one is > 0.
	Rate  float64
	Users int
	// Native is the trace's own rate in req/s: with it a Rate rescales
	// the trace's times (time-scale Native/Rate), keeping its bursts and
	// sessions; 0 offers Rate with Base.Workload.Arrival instead.
	Native float64
	// Ident identifies the workload, Profile names the engine profile,
	// for the report.
	Ident, Profile string
	// Attainment is the SLA attainment a fleet must reach on every seed
	// (a fraction in (0, 1]; 0: 0.9).
	Attainment float64
	// MaxReplicas is the largest fleet tried (0: 64).
	MaxReplicas int
	// Seeds runs every fleet on that many seeds of the workload and the
	// engines (seed, seed+1, ...; 0: 1); a fleet meets the target when it
	// does on all of them.
	Seeds int
	// PDSize, when ≥ 2, also searches every prefill:decode split of a P/D
	// fleet of that many replicas for the most load it serves.
	PDSize int
	// Jobs is how many routers are planned at once (0: 1).
	Jobs int
	// Out, when set, keeps every Run's results file under Out/runs/
	// (else they go to a temporary directory, removed at the end).
	Out string
	// ErrOut receives one line per Run (nil: none).
	ErrOut io.Writer
}

// Validate checks the spec before anything runs; a bad setting is a
// UsageError naming its field.
func (s Spec) Validate() error {
	switch {
	case (s.Rate > 0) == (s.Users > 0):
		return bench.FieldErrorf("PlanSpec.Rate", "PlanSpec.Rate %g, PlanSpec.Users %d: want exactly one target, a rate > 0 or users > 0",
			s.Rate, s.Users)
	case s.Rate < 0 || s.Users < 0:
		return bench.FieldErrorf("PlanSpec.Rate", "PlanSpec.Rate %g, PlanSpec.Users %d: want a target > 0", s.Rate, s.Users)
	case len(s.Routers) == 0:
		return bench.FieldErrorf("PlanSpec.Routers", "PlanSpec.Routers: want at least one router")
	case s.Attainment < 0 || s.Attainment > 1:
		return bench.FieldErrorf("PlanSpec.Attainment", "PlanSpec.Attainment %g: want a fraction in (0, 1]", s.Attainment)
	case s.MaxReplicas < 0:
		return bench.FieldErrorf("PlanSpec.MaxReplicas", "PlanSpec.MaxReplicas %d: want ≥ 1", s.MaxReplicas)
	case s.Seeds < 0:
		return bench.FieldErrorf("PlanSpec.Seeds", "PlanSpec.Seeds %d: want ≥ 1", s.Seeds)
	case s.PDSize == 1 || s.PDSize < 0:
		return bench.FieldErrorf("PlanSpec.PDSize", "PlanSpec.PDSize %d: want ≥ 2 (one prefill and one decode replica), or 0 for none", s.PDSize)
	}
	return nil
}

// withDefaults fills the zero settings with their defaults.
func (s Spec) withDefaults() Spec {
	if s.Attainment == 0 {
		s.Attainment = 0.9
	}
	if s.MaxReplicas == 0 {
		s.MaxReplicas = 64
	}
	s.Seeds, s.Jobs = max(s.Seeds, 1), max(s.Jobs, 1)
	return s
}

// Plan finds, for each router, the fewest replicas that meet the SLO at
// the target load, and with PDSize the best prefill:decode split; it
// returns the plan, also when a Run fails (with that error). A bad
// setting is a UsageError with nothing run.
func Plan(ctx context.Context, spec Spec) (*reports.Plan, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	spec = spec.withDefaults()
	start := time.Now()
	p := newPlanner(spec)
	res := p.header()
	dir, done, err := p.runsDir()
	if err != nil {
		return res, err
	}
	defer done()
	p.dir = dir
	if p.planned, err = p.countRequests(); err != nil {
		return res, err
	}
	res.Rows = make([]reports.PlanRow, len(spec.Routers))
	err = p.each(func(i int, router string) (err error) {
		res.Rows[i], err = p.row(ctx, router)
		return err
	})
	if err == nil && spec.PDSize >= 2 {
		res.PD = make([]reports.PlanPD, len(spec.Routers))
		err = p.each(func(i int, router string) (err error) {
			res.PD[i], err = p.pdSplits(ctx, router)
			return err
		})
	}
	res.Seconds = time.Since(start).Seconds()
	return res, err
}

// planner runs a plan's simulations.
type planner struct {
	s Spec
	// dir holds the Runs' results files; planned is how many Requests
	// a Run replays (0: unknown, closed-loop users).
	dir     string
	planned int
	// mu serialises the per-Run lines of routers planned side by side.
	mu sync.Mutex
}

func newPlanner(s Spec) *planner { return &planner{s: s} }

// header describes the plan before any Run.
func (p *planner) header() *reports.Plan {
	s := p.s
	res := &reports.Plan{Workload: s.Ident, Profile: s.Profile, Rate: s.Rate, Users: s.Users, Unit: p.unit(),
		SLO: s.Base.Report.SLO, Target: s.Attainment, Seeds: s.Seeds, MaxReplicas: s.MaxReplicas,
		PerHour: s.Base.Report.Price.PerHour, PriceSource: s.Base.Report.Price.Source}
	return res
}

// unit is what the load counts: "req/s" or "users".
func (p *planner) unit() string {
	if p.s.Users > 0 {
		return "users"
	}
	return "req/s"
}

// target is the target load in its unit.
func (p *planner) target() float64 {
	if p.s.Users > 0 {
		return float64(p.s.Users)
	}
	return p.s.Rate
}

// runsDir is where the Runs' results files go: Out/runs, else a
// temporary directory that done removes.
func (p *planner) runsDir() (dir string, done func(), err error) {
	if p.s.Out != "" {
		dir = filepath.Join(p.s.Out, "runs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("PlanSpec.Out %s: %w", p.s.Out, err)
		}
		return dir, func() {}, nil
	}
	dir, err = os.MkdirTemp("", "tracebench-plan-")
	if err != nil {
		return "", nil, fmt.Errorf("plan runs dir: %w", err)
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

// each calls fn for every router, Jobs at a time, and returns the first
// error in the routers' order.
func (p *planner) each(fn func(i int, router string) error) error {
	return bench.Each(len(p.s.Routers), p.s.Jobs, func(i int) error { return fn(i, p.s.Routers[i]) })
}

// row plans one router: the fewest replicas at the target load, its
// figures, and when not met the largest load the largest fleet met.
func (p *planner) row(ctx context.Context, router string) (reports.PlanRow, error) {
	row := reports.PlanRow{Policy: bench.PolicyName(router, p.s.Base.Policy.Queue)}
	figs := map[int]reports.PlanFigures{}
	eval := func(n int) (float64, bool, error) {
		ev, err := p.point(ctx, router, n, p.target(), nil)
		figs[n] = ev.figures
		return ev.attainment, ev.pass, err
	}
	n, tried, err := FewestReplicas(eval, p.s.MaxReplicas)
	row.Replicas, row.Tried = n, tried
	if err != nil || n > 0 {
		row.Figures = figs[n]
		return row, err
	}
	row.LargestMet, err = p.largestMet(ctx, router)
	return row, err
}
