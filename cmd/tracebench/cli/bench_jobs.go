package cli

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/reports"
)

// benchJobs is how many policies bench runs at once: --jobs when set;
// else all of them, each on its own mock fleet (a mock replica uses a
// small share of a core at bench's rates); GOMAXPROCS with --sim (a
// simulation keeps one core busy); one against --target, whose servers
// every run shares.
func benchJobs(o *benchOptions, n int) int {
	switch {
	case o.jobs > 0:
		return min(o.jobs, n)
	case len(o.targets) > 0:
		return 1
	case o.mf.Sim > 0:
		return min(runtime.GOMAXPROCS(0), n)
	}
	return n
}

// benchAll runs every policy in names and returns their Summaries in
// names' order (runs that produced none left out). Mock-fleet runs made
// side by side are checked with reports.Distortion: those the machine
// distorted are run again (see benchRedo), and bench says so.
func benchAll(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string) ([]*reports.Summary, error) {
	if o.jobs > 1 && len(o.targets) > 0 {
		return nil, usagef("--jobs %d: runs against --target share its servers, so they go one at a time", o.jobs)
	}
	jobs := benchJobs(o, len(names))
	sums, err := benchBatch(ctx, cmd, o, ro, names, jobs)
	if err == nil && jobs > 1 && len(o.targets) == 0 && o.mf.Sim == 0 {
		err = benchRedo(ctx, cmd, o, ro, names, sums, jobs)
	}
	out := make([]*reports.Summary, 0, len(sums))
	for _, s := range sums {
		if s != nil {
			out = append(out, s)
		}
	}
	return out, err
}

// benchBatch runs names, jobs at a time, each on its own fleet or
// simulation, and returns the Summaries by position (nil where a run
// produced none) and the first error, an interrupt only when nothing
// else failed. With jobs > 1 the progress displays are off and a line
// on stderr marks each finished run.
func benchBatch(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string, jobs int) ([]*reports.Summary, error) {
	sums := make([]*reports.Summary, len(names))
	errs := make([]error, len(names))
	if jobs <= 1 {
		for i, name := range names {
			sums[i], errs[i] = benchOne(ctx, cmd, o, ro, name, false)
			if errs[i] != nil {
				break
			}
		}
		return sums, bench.FirstError(errs)
	}
	if err := benchPreflight(o, names); err != nil {
		return sums, err
	}
	start := time.Now()
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: %d policies, %d at a time, each on its own fleet\n", len(names), jobs)
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
			sums[i], errs[i] = benchOne(ctx, cmd, o, ro, name, true)
			mu.Lock()
			defer mu.Unlock()
			done++
			if errs[i] == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "bench: %s finished (%d of %d, %.0f s)\n", name, done, len(names), time.Since(start).Seconds())
			}
		}()
	}
	wg.Wait()
	return sums, bench.FirstError(errs)
}

// benchPreflight opens the workload once and builds every policy, so a
// bad flag fails once, before any run starts, rather than in every run
// side by side.
func benchPreflight(o *benchOptions, names []string) error {
	return bench.Preflight(o.wf, o.pf, names)
}

// benchRedo runs again the runs of names whose Summary reports.Distortion
// flags, replacing their Summaries and results files. It first runs one
// of them alone: when that is distorted too, the machine is too busy for
// any run to be honest, so it stops there and says so, keeping the runs
// (their reports carry the warnings). Otherwise running side by side was
// the cause, and it runs the rest again at half the concurrency, halving
// until none is flagged or they go one at a time.
func benchRedo(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string,
	sums []*reports.Summary, jobs int) error {
	w := cmd.ErrOrStderr()
	redo, why := distorted(names, sums, allIndexes(len(names)))
	if len(redo) == 0 {
		return nil
	}
	fmt.Fprintf(w, "bench: the machine could not keep %d of %d runs side by side honest (%s); running %s again alone\n",
		len(redo), len(names), why, names[redo[0]])
	s, err := benchOne(ctx, cmd, o, ro, names[redo[0]], false)
	if s != nil {
		sums[redo[0]] = s
	}
	if err != nil {
		return err
	}
	if d := distortion(s); d != "" {
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
		again, err := benchBatch(ctx, cmd, o, ro, sub, jobs)
		for k, i := range redo {
			if again[k] != nil {
				sums[i] = again[k]
			}
		}
		if err != nil {
			return err
		}
		redo, why = distorted(names, sums, redo)
		if len(redo) > 0 {
			fmt.Fprintf(w, "bench: still distorted: %s\n", why)
		}
	}
	return nil
}

// distortion says why a run's timings are not the servers' alone ("" when
// they are); a variable so tests can play a busy machine.
var distortion = reports.Distortion

// distorted returns which of the runs at positions in distortion flags,
// and why, as one line.
func distorted(names []string, sums []*reports.Summary, in []int) ([]int, string) {
	var out []int
	var why []string
	for _, i := range in {
		if d := distortion(sums[i]); d != "" {
			out = append(out, i)
			why = append(why, names[i]+": "+d)
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
