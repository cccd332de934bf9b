package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
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
// distorted are run again one at a time, and bench says so.
func benchAll(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string) ([]*reports.Summary, error) {
	if o.jobs > 1 && len(o.targets) > 0 {
		return nil, usagef("--jobs %d: runs against --target share its servers, so they go one at a time", o.jobs)
	}
	jobs := benchJobs(o, len(names))
	sums, err := benchBatch(ctx, cmd, o, ro, names, jobs)
	if err == nil && jobs > 1 && len(o.targets) == 0 && o.mf.Sim == 0 {
		err = benchRedo(ctx, cmd, o, ro, names, sums)
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
		return sums, firstError(errs)
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
	return sums, firstError(errs)
}

// benchPreflight opens the workload once and builds every policy, so a
// bad flag fails once, before any run starts, rather than in every run
// side by side.
func benchPreflight(o *benchOptions, names []string) error {
	src, err := openSource(o.wf)
	if err != nil {
		return err
	}
	src.close()
	for _, name := range names {
		if _, err := buildPolicy(o.pf, name, o.wf.Seed); err != nil {
			return err
		}
	}
	return nil
}

// benchRedo runs again, one at a time, the runs of names whose Summary
// reports.Distortion flags, replacing their Summaries and results files.
// When a run alone is distorted too, the machine is too busy for any run
// to be honest: it stops there and says so, keeping the side-by-side runs
// (whose reports carry the warnings).
func benchRedo(ctx context.Context, cmd *cobra.Command, o *benchOptions, ro reports.Options, names []string, sums []*reports.Summary) error {
	var redo []int
	var why []string
	for i, s := range sums {
		if d := reports.Distortion(s); d != "" {
			redo = append(redo, i)
			why = append(why, names[i]+": "+d)
		}
	}
	if len(redo) == 0 {
		return nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: the machine could not keep %d of %d runs side by side honest (%s); "+
		"running them again one at a time\n", len(redo), len(names), strings.Join(why, "; "))
	for k, i := range redo {
		s, err := benchOne(ctx, cmd, o, ro, names[i], false)
		if s != nil {
			sums[i] = s
		}
		if err != nil {
			return err
		}
		if d := reports.Distortion(s); d != "" && k < len(redo)-1 {
			fmt.Fprintf(cmd.ErrOrStderr(), "bench: %s alone was distorted too (%s): the machine is too busy for "+
				"honest timings; kept the other runs as they were, see the report's warnings\n", names[i], d)
			return nil
		}
	}
	return nil
}

// firstError is the first error that is not an interrupt, else the
// first interrupt, else nil.
func firstError(errs []error) error {
	var intr error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, ErrInterrupted):
			intr = cmp.Or(intr, err)
		default:
			return err
		}
	}
	return intr
}
