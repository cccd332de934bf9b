package plan

import (
	"context"
	"fmt"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/search"
)

// loadSearch searches the most load (in the plan's unit) router serves
// under the SLO on n replicas (split by roles, nil: none), from start
// down or up by factors of 2 and bisecting to 4 %, the load at most
// maxLoad (0: no bound). It returns the load (0: none met), the first
// seed's figures there and the Runs made.
func (p *planner) loadSearch(ctx context.Context, router string, n int, roles []string, start, maxLoad float64) (float64, reports.PlanFigures, int, error) {
	figs := map[float64]reports.PlanFigures{}
	eval := func(load float64) (float64, error) {
		pt, err := p.point(ctx, router, n, load, roles)
		figs[load] = pt.figures
		if err == nil && !pt.pass {
			// A seed after the first missed: the point fails however
			// high its lowest attainment.
			return min(pt.attainment, p.s.Attainment/2), nil
		}
		return pt.attainment, err
	}
	o := search.Options{Target: p.s.Attainment, Start: start, Growth: 2, Tolerance: 0.04, MaxRuns: 10, MaxRate: maxLoad}
	if p.s.Users > 0 {
		o.Step, o.MinRate = 1, 1
	}
	res, err := search.FindSustainedRate(eval, o)
	return res.Sustained, figs[res.Sustained], len(res.Probes), err
}

// largestMet is the most load the largest fleet serves when it does not
// serve the target: searched down from half the target.
func (p *planner) largestMet(ctx context.Context, router string) (float64, error) {
	load, _, _, err := p.loadSearch(ctx, router, p.s.MaxReplicas, nil, p.target()/2, p.target())
	return load, err
}

// pdSplits tries every prefill:decode split of a PDSize fleet under
// router (which picks both replicas) and finds the most load each
// serves under the SLO, searched from the target load.
func (p *planner) pdSplits(ctx context.Context, router string) (reports.PlanPD, error) {
	size := p.s.PDSize
	pd := reports.PlanPD{Policy: bench.PolicyName(router, p.s.Base.Policy.Queue), Size: size, Best: -1}
	for pre := 1; pre < size; pre++ {
		roles, err := bench.RolesByRatio(fmt.Sprintf("%d:%d", pre, size-pre), size)
		if err != nil {
			return pd, err
		}
		load, figs, runs, err := p.loadSearch(ctx, router, size, roles, p.target(), 0)
		pd.Splits = append(pd.Splits, reports.PlanSplit{Prefill: pre, Decode: size - pre, Sustained: load, Figures: figs, Runs: runs})
		if err != nil {
			return pd, err
		}
		if load > 0 && (pd.Best < 0 || load > pd.Splits[pd.Best].Sustained) {
			pd.Best = len(pd.Splits) - 1
		}
	}
	return pd, nil
}
