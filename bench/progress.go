package bench

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/traces"
	"golang.org/x/term"
)

// countLimit bounds the counting of a generated workload's Requests for
// the progress total: past Requests of them, or after Time of counting,
// the total is unknown.
type countLimit struct {
	Requests int64
	Time     time.Duration
}

// progressCount is the limit a Run's progress total is counted within:
// a million Requests or a quarter of a second (some 7,000 Requests of
// most workloads). The count runs before the Run starts, never beside
// it, so it cannot take CPU from the pacing; it delays the start by at
// most Time.
var progressCount = countLimit{Requests: 1_000_000, Time: 250 * time.Millisecond}

// progress starts the progress display on stderr unless quiet, and
// returns the func that stops it. It first counts the Run's total
// (progressTotal within progressCount, ended early by ctx); the display
// goes on past ctx's end, while in-flight Requests drain after Ctrl-C,
// until the stop func.
func (rs Spec) progress(ctx context.Context, name string, c *replay.Counters) func() {
	if rs.Quiet || rs.ErrOut == nil {
		return func() {}
	}
	tty := false
	if f := fileOf(rs.ErrOut); f != nil {
		tty = term.IsTerminal(int(f.Fd()))
	}
	total := progressTotal(ctx, rs.Workload, progressCount)
	return replay.ShowProgress(context.WithoutCancel(ctx), rs.ErrOut, tty, name, total, c, 5*time.Second)
}

// progressTotal is the number of Requests a Run replays, when known up
// front (0 otherwise): a generated workload's, counted by generating it
// once more (seeded, so the same Requests; some 35 µs each), which takes
// --duration and --shard into account, unless lim or ctx ends the count
// first; else --max-requests for an unsharded Run (a shorter trace ends
// sooner, and the display then ends at what was done).
func progressTotal(ctx context.Context, wf Workload, lim countLimit) int64 {
	if wf.Duration > 0 && wf.Sessions.closed() {
		return 0 // closed-loop turns come when answered: how many fit the duration is not known ahead
	}
	if wf.Trace != "" {
		if wf.Shard != "" {
			return 0
		}
		return int64(wf.MaxRequests)
	}
	src, err := OpenSource(wf)
	if err != nil {
		return 0
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(ctx, lim.Time)
	defer cancel()
	return countRequests(ctx, src, lim.Requests)
}

// countRequests counts src's Requests up to io.EOF; 0 (unknown) on a
// read error, past limit Requests, or once ctx ends.
func countRequests(ctx context.Context, src traces.Source, limit int64) int64 {
	for n := int64(0); n <= limit; n++ {
		if ctx.Err() != nil {
			return 0
		}
		if _, err := src.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return n
			}
			return 0
		}
	}
	return 0
}
