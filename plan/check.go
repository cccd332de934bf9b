package plan

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
)

// Check runs router on n replicas at the plan's target load over
// the first requests Requests twice, simulated in virtual time and on
// fleet, a real-time in-process mock fleet on loopback (its Replicas set
// to n here), and returns both runs' figures. fleet's engine should be
// spec.Base.Fleet.
func Check(ctx context.Context, spec Spec, router string, n, requests int, fleet bench.MockFleet) (*reports.PlanCheck, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if n < 1 || requests < 1 {
		return nil, bench.FieldErrorf("PlanCheck", "PlanCheck: %d replicas, %d requests: want ≥ 1 of each", n, requests)
	}
	spec = spec.withDefaults()
	p := newPlanner(spec)
	dir, done, err := p.runsDir()
	if err != nil {
		return nil, err
	}
	defer done()
	rs := spec.Base
	rs.Policy.Router, rs.Quiet = router, true
	rs.Workload.MaxRequests = requests
	p.setLoad(&rs.Workload, p.target())
	c := &reports.PlanCheck{Policy: bench.PolicyName(router, rs.Policy.Queue), Replicas: n, Requests: requests}
	sim := rs
	sim.Sim, sim.Results = n, filepath.Join(dir, "check-sim.jsonl")
	sum, err := bench.Run(ctx, sim)
	if err != nil {
		return nil, fmt.Errorf("check in virtual time: %w", err)
	}
	c.Sim = reports.FiguresOf(sum)
	fleet.Replicas = n
	live := rs
	live.Results = filepath.Join(dir, "check-mock.jsonl")
	stop, err := fleet.Start(ctx, &live)
	if err != nil {
		return nil, fmt.Errorf("check: start the mock fleet: %w", err)
	}
	defer stop()
	start := time.Now()
	if sum, err = bench.Run(ctx, live); err != nil {
		return nil, fmt.Errorf("check in real time: %w", err)
	}
	c.Seconds, c.Mock = time.Since(start).Seconds(), reports.FiguresOf(sum)
	return c, nil
}
