package cli

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/tracebench/tracebench/reports"
)

// sweepSeeds sweeps every policy again on seeds 1..--seeds−1 (the
// workload seed, hence the arrivals, and the mock's seed shifted by K;
// runs under --out/seed-K/runs) and returns the capacity verdict over all
// seeds, the first being res. With one policy there is none; with one
// seed the verdict has no confidence interval.
func sweepSeeds(ctx context.Context, sw *sweeper, o *sweepOptions, names []string, baseline string, res *reports.Sweep) (*reports.Verdict, error) {
	sustained := map[string][]float64{}
	var order []string
	for _, p := range res.Policies {
		sustained[p.Policy] = append(sustained[p.Policy], p.Sustained)
		order = append(order, p.Policy)
	}
	if len(order) < 2 {
		return nil, nil
	}
	seed, mseed, out := o.wf.Seed, o.mf.Seed, o.out
	defer func() { o.wf.Seed, o.mf.Seed, o.out = seed, mseed, out }()
	for k := 1; k < o.seeds; k++ {
		o.wf.Seed, o.mf.Seed, o.out = seed+uint64(k), mseed+int64(k), filepath.Join(out, "seed-"+strconv.Itoa(k))
		more, err := sw.run(ctx, names, baseline)
		if err != nil {
			return nil, err
		}
		for _, p := range more.Policies {
			sustained[p.Policy] = append(sustained[p.Policy], p.Sustained)
		}
	}
	v := reports.DecideCapacityVerdict(order, sustained, res.SLO)
	if v != nil {
		v.ProfileNote = profileNote(o.mf, o.live())
	}
	return v, nil
}
