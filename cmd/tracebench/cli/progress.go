package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/tracebench/tracebench/replay"
	"golang.org/x/term"
)

// progress starts the progress display on stderr unless quiet.
func (rs runSpec) progress(ctx context.Context, name string, c *replay.Counters) func() {
	if rs.quiet || rs.errOut == nil {
		return func() {}
	}
	tty := false
	if f, ok := rs.errOut.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return replay.ShowProgress(ctx, rs.errOut, tty, name, progressTotal(rs.wf), c, 5*time.Second)
}

// progressTotal is the number of Requests a Run replays, when known up
// front (0 otherwise): a generated workload's, counted by generating it
// once more (seeded, so the same Requests; a few milliseconds per
// thousand), which takes --duration and --shard into account; else
// --max-requests for an unsharded Run (a shorter trace ends sooner, and
// the display then ends at what was done).
func progressTotal(wf workloadFlags) int64 {
	if wf.Trace != "" {
		if wf.Shard != "" {
			return 0
		}
		return int64(wf.MaxRequests)
	}
	src, err := openSource(wf)
	if err != nil {
		return 0
	}
	defer src.close()
	var n int64
	for {
		if _, err := src.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				return 0
			}
			return n
		}
		n++
	}
}
