package bench

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/tracebench/tracebench/verdict"
)

// sweepSeeds sweeps every policy again on seeds 1..Seeds−1 (the workload
// seed, hence the arrivals, and the engines' seed shifted by K; runs under
// Out/seed-K/runs) and returns the capacity verdict over all seeds, the
// first being res. With one policy there is none; with one seed the
// verdict has no confidence interval.
func sweepSeeds(ctx context.Context, spec SweepSpec, res *verdict.Sweep) (*verdict.Verdict, error) {
	sustained := map[string][]float64{}
	var order []string
	for _, p := range res.Policies {
		sustained[p.Policy] = append(sustained[p.Policy], p.Sustained)
		order = append(order, p.Policy)
	}
	if len(order) < 2 {
		return nil, nil
	}
	for k := 1; k < spec.Seeds; k++ {
		s := spec
		s.Base = s.Base.Reseeded(k)
		s.Out = filepath.Join(spec.Out, "seed-"+strconv.Itoa(k))
		more, err := newSweeper(&s).run(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range more.Policies {
			sustained[p.Policy] = append(sustained[p.Policy], p.Sustained)
		}
	}
	v := verdict.DecideSweepVerdict(res, order, sustained)
	if v != nil {
		v.ProfileNote = spec.ProfileNote
	}
	return v, nil
}
