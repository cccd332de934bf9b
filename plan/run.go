package plan

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/results"
)

// planPoint is a fleet's outcome at one load over the seeds run.
type planPoint struct {
	// attainment is the lowest SLA attainment over the seeds, pass
	// whether every seed met the target, figures the first seed's run
	// with that lowest attainment.
	attainment float64
	pass       bool
	figures    reports.PlanFigures
}

// point runs router on n replicas (split by roles for P/D, nil: none)
// at load, seed after seed until one misses the target.
func (p *planner) point(ctx context.Context, router string, n int, load float64, roles []string) (planPoint, error) {
	pt := planPoint{attainment: 1, pass: true}
	for k := range p.s.Seeds {
		sum, a, err := p.run(ctx, router, n, load, roles, k)
		if err != nil {
			return planPoint{}, err
		}
		if k == 0 {
			pt.figures = reports.FiguresOf(sum)
		}
		pt.attainment = math.Min(pt.attainment, a)
		if !(a >= p.s.Attainment) {
			pt.pass = false
			break
		}
	}
	pt.figures.Attainment = pt.attainment
	return pt, nil
}

// run makes one simulated Run of router on n replicas at load on seed
// k and returns its Summary and attainment. A Run is cut short once so
// many Requests missed the SLO that it cannot pass; its attainment is
// then the most it could have reached.
func (p *planner) run(ctx context.Context, router string, n int, load float64, roles []string, k int) (*metrics.Summary, float64, error) {
	rs := p.s.Base.Reseeded(k)
	rs.Policy.Router, rs.Sim, rs.Quiet = router, n, true
	p.setLoad(&rs.Workload, load)
	tag := "n" + strconv.Itoa(n)
	if roles != nil {
		rs.PD = &bench.PD{Roles: roles}
		tag = fmt.Sprintf("pd%d-%d", countRole(roles, replay.RolePrefill), countRole(roles, replay.RoleDecode))
	}
	policy := bench.PolicyName(router, rs.Policy.Queue)
	rs.Results = filepath.Join(p.dir, fmt.Sprintf("%s-%s-l%s-s%d.jsonl", policy, tag, strconv.FormatFloat(load, 'g', 6, 64), k+1))
	cut := p.cutter(rs)
	rs.OnResult = cut.check
	sum, err := bench.Run(ctx, rs)
	if err != nil {
		return nil, 0, fmt.Errorf("%s on %s: %w", policy, tag, err)
	}
	a, cutShort := sum.SLA.Attainment, sum.Stop != nil && sum.Stop.Reason == results.StopSLOUnreachable
	if cutShort {
		a = cut.bound()
	}
	p.report(policy, tag, load, k, a, cutShort)
	return sum, a, nil
}

// countRole counts the roles equal to role.
func countRole(roles []string, role string) int {
	n := 0
	for _, r := range roles {
		if r == role {
			n++
		}
	}
	return n
}

// setLoad makes wf offer load: that many closed-loop users, the trace's
// times rescaled to load req/s when its own rate is known, else load
// req/s of Workload.Arrival.
func (p *planner) setLoad(wf *bench.Workload, load float64) {
	if p.s.Users > 0 {
		wf.Sessions.Pacing, wf.Sessions.Users = string(replay.SessionsClosed), int(math.Round(load))
		wf.Rate, wf.TimeScale = 0, 1
		return
	}
	wf.Sessions.Pacing = cmp.Or(wf.Sessions.Pacing, string(replay.SessionsOpen))
	if p.s.Native > 0 {
		wf.Rate, wf.TimeScale = 0, p.s.Native/load
		return
	}
	wf.Rate, wf.TimeScale = load, 1
}

// countRequests counts the Requests an open-loop Run replays, so that a
// Run can stop once it cannot pass; 0 (no cut) for closed-loop users,
// whose count depends on the answers, with a warm-up, whose Requests
// do not count, and with a duration, which counts more at higher loads.
func (p *planner) countRequests() (int, error) {
	if p.s.Users > 0 || p.s.Base.Report.Warmup > 0 || p.s.Base.Workload.Duration > 0 {
		return 0, nil
	}
	wf := p.s.Base.Workload
	p.setLoad(&wf, p.target())
	src, err := bench.OpenSource(wf)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	n := 0
	for {
		if _, err := src.Next(); errors.Is(err, io.EOF) {
			return n, nil
		} else if err != nil {
			return 0, err
		}
		n++
	}
}

// report prints one line per Run on ErrOut; a Run cut short once it
// could not pass says so.
func (p *planner) report(policy, tag string, load float64, k int, a float64, cutShort bool) {
	if p.s.ErrOut == nil {
		return
	}
	met := fmt.Sprintf("SLA met %.1f %%", 100*a)
	switch {
	case cutShort:
		met = fmt.Sprintf("SLA met below %.1f %%, cut short once it could not pass", 100*p.s.Attainment)
	case a >= p.s.Attainment:
		met += ": pass"
	default:
		met += ": fail"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.s.ErrOut, "plan %s %s at %.4g %s, seed %d: %s\n", policy, tag, load, p.unit(), k+1, met)
}
