package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

// all runs every router of spec (c.routers) and returns their Summaries
// in that order (Runs that produced none left out). Mock-fleet Runs made
// side by side are checked for distortion: those the machine distorted
// are run again (see redo), and Compare says so.
func (c *comparer) all(ctx context.Context, spec CompareSpec) ([]*metrics.Summary, error) {
	jobs := c.jobs(len(c.routers))
	sums, err := c.batch(ctx, spec, c.routers, jobs)
	if err == nil && jobs > 1 && c.sideBySideChecked() {
		err = c.redo(ctx, spec, sums, jobs)
	}
	out := make([]*metrics.Summary, 0, len(sums))
	for _, s := range sums {
		if s != nil {
			out = append(out, s)
		}
	}
	return out, err
}

// batch runs names, jobs at a time, each on its own fleet or
// simulation, and returns the Summaries by position (nil where a Run
// produced none) and the first error, an interrupt only when nothing
// else failed. With jobs > 1 the progress displays are off and a line
// on ErrOut marks each finished Run.
func (c *comparer) batch(ctx context.Context, spec CompareSpec, names []string, jobs int) ([]*metrics.Summary, error) {
	sums := make([]*metrics.Summary, len(names))
	errs := make([]error, len(names))
	if jobs <= 1 {
		for i, name := range names {
			sums[i], errs[i] = c.one(ctx, spec, name, false)
			if errs[i] != nil {
				break
			}
		}
		return sums, FirstError(errs)
	}
	// A bad Workload or Policy fails once, before any Run starts, rather
	// than in every Run side by side.
	if err := Preflight(spec.Base.Workload, spec.Base.Policy, names); err != nil {
		return sums, err
	}
	start := time.Now()
	fmt.Fprintf(c.errOut, "bench: %d policies, %d at a time, each on its own fleet\n", len(names), jobs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, jobs)
	done := 0
	for i, name := range names {
		sem <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sums[i], errs[i] = c.one(ctx, spec, name, true)
			mu.Lock()
			defer mu.Unlock()
			done++
			if errs[i] == nil {
				fmt.Fprintf(c.errOut, "bench: %s finished (%d of %d, %.0f s)\n", name, done, len(names), time.Since(start).Seconds())
			}
		}()
	}
	wg.Wait()
	return sums, FirstError(errs)
}

// redo runs again the Runs of c.routers whose Summary c.distortion
// flags, replacing their Summaries and results files. It first runs one
// of them alone: when that is distorted too, the machine is too busy for
// any Run to be honest, so it stops there and says so, keeping the Runs
// (their reports carry the warnings). Otherwise running side by side was
// the cause, and it runs the rest again at half the concurrency, halving
// until none is flagged or they go one at a time.
func (c *comparer) redo(ctx context.Context, spec CompareSpec, sums []*metrics.Summary, jobs int) error {
	names, w := c.routers, c.errOut
	redo, why := c.distorted(sums, allIndexes(len(names)))
	if len(redo) == 0 {
		return nil
	}
	fmt.Fprintf(w, "bench: the machine could not keep %d of %d runs side by side honest (%s); running %s again alone\n",
		len(redo), len(names), why, names[redo[0]])
	s, err := c.one(ctx, spec, names[redo[0]], false)
	if s != nil {
		sums[redo[0]] = s
	}
	if err != nil {
		return err
	}
	if d := c.distortion(s); d != "" {
		fmt.Fprintf(w, "bench: %s alone was distorted too (%s): the machine is too busy for honest timings; "+
			"kept the other runs as they were, see the report's warnings\n", names[redo[0]], d)
		return nil
	}
	alone := names[redo[0]]
	redo = redo[1:]
	for len(redo) > 0 && jobs > 1 {
		jobs = max(1, min(jobs/2, len(redo)))
		lead := "bench: " + alone + " alone was honest; running the other"
		if alone == "" {
			lead = "bench: running the"
		}
		fmt.Fprintf(w, "%s %d again, %d at a time\n", lead, len(redo), jobs)
		alone = ""
		sub := make([]string, len(redo))
		for k, i := range redo {
			sub[k] = names[i]
		}
		again, err := c.batch(ctx, spec, sub, jobs)
		for k, i := range redo {
			if again[k] != nil {
				sums[i] = again[k]
			}
		}
		if err != nil {
			return err
		}
		redo, why = c.distorted(sums, redo)
		if len(redo) > 0 {
			fmt.Fprintf(w, "bench: still distorted: %s\n", why)
		}
	}
	return nil
}

// distorted returns which of the Runs at positions in c.distortion
// flags, and why, as one line.
func (c *comparer) distorted(sums []*metrics.Summary, in []int) ([]int, string) {
	var out []int
	var why []string
	for _, i := range in {
		if d := c.distortion(sums[i]); d != "" {
			out = append(out, i)
			why = append(why, c.routers[i]+": "+d)
		}
	}
	return out, strings.Join(why, "; ")
}

// allIndexes is 0 … n−1.
func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
