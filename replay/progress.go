package replay

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// ShowProgress displays c until ctx is done: an mpb bar when tty is true,
// else a plain line every period and, after one, a last line when the
// display stops (a run shorter than period prints none).
// total is the expected request count (0 when unknown). The returned
// function stops the display and waits for it to finish drawing.
func ShowProgress(ctx context.Context, w io.Writer, tty bool, name string, total int64, c *Counters, period time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		if tty {
			barLoop(ctx, w, name, total, c, start)
			return
		}
		lineLoop(ctx, w, name, total, c, start, period)
	}()
	return func() { cancel(); <-done }
}

// status formats the live figures.
func status(c *Counters, start time.Time) string {
	el := time.Since(start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(c.Sent.Load()) / el
	}
	return fmt.Sprintf("in-flight %d  held %d  %.1f req/s  errors %d",
		c.InFlight.Load(), c.Held.Load(), rate, c.Errors.Load())
}

func barLoop(ctx context.Context, w io.Writer, name string, total int64, c *Counters, start time.Time) {
	p := mpb.NewWithContext(ctx, mpb.WithOutput(w), mpb.WithRefreshRate(200*time.Millisecond))
	bar := p.New(total, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Name(name+" "), decor.CountersNoUnit("%d/%d")),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return status(c, start) })),
	)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			bar.SetTotal(c.Done.Load(), true)
			p.Wait()
			return
		case <-t.C:
			bar.SetCurrent(c.Done.Load())
		}
	}
}

func lineLoop(ctx context.Context, w io.Writer, name string, total int64, c *Counters, start time.Time, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	printed := false
	for {
		select {
		case <-ctx.Done():
			if printed {
				fmt.Fprintln(w, progressLine(name, total, c, start))
			}
			return
		case <-t.C:
			fmt.Fprintln(w, progressLine(name, total, c, start))
			printed = true
		}
	}
}

// progressLine is one plain progress line: "name: done/total done ..."
// (just "done" when the total is unknown).
func progressLine(name string, total int64, c *Counters, start time.Time) string {
	done := fmt.Sprint(c.Done.Load())
	if total > 0 {
		done += fmt.Sprintf("/%d", total)
	}
	return fmt.Sprintf("%s: %s done  %s", name, done, status(c, start))
}
