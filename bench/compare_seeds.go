package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/verdict"
)

// verdict runs seeds 1..Seeds−1 of every router (seed 0 is first, whose
// Runs the report details), each seed shifting the workload seed, hence
// the arrivals, and the engines' seed, into Out/seed-K (the routers of a
// seed side by side, as the first seed's), and decides the verdict from
// all of them. With one router, or when a first-seed Run produced no
// Summary, there is none.
func (c *comparer) verdict(ctx context.Context, first []*metrics.Summary) (*verdict.Verdict, error) {
	names := c.routers
	if len(first) != len(names) || len(names) < 2 {
		return nil, nil
	}
	runs := map[string][]*metrics.Summary{}
	for i, s := range first {
		runs[names[i]] = append(runs[names[i]], s)
	}
	for k := 1; k < c.spec.Seeds; k++ {
		s := c.spec
		s.Base = s.Base.Reseeded(k)
		s.Out = filepath.Join(c.spec.Out, "seed-"+strconv.Itoa(k))
		if err := os.MkdirAll(s.Out, 0o755); err != nil {
			return nil, fmt.Errorf("CompareSpec.Out %s: %w", s.Out, err)
		}
		sums, err := c.all(ctx, s)
		if err != nil {
			return nil, err
		}
		if len(sums) != len(names) {
			return nil, fmt.Errorf("seed %d: %d of %d policies produced a summary", k, len(sums), len(names))
		}
		for i, name := range names {
			runs[name] = append(runs[name], sums[i])
		}
	}
	v := verdict.DecideVerdict(names, runs)
	if v != nil {
		v.ProfileNote = c.spec.ProfileNote
	}
	return v, nil
}
