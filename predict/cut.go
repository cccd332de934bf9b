package predict

import (
	"fmt"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/sim"
)

// measuredCut is how the measured run ended, for the simulation to end
// the same way: its client's first-byte timeout (the header's, else the
// client's default, for runs that sent HTTP; none for a simulated run),
// and its stop time when something other than the end of its requests
// stopped it (a signal, a time limit; the stop record's elapsed time,
// grace period included). It returns a note saying what it applied.
func measuredCut(h results.Header, st *results.Stop) (sim.Cut, string) {
	var c sim.Cut
	if h.Mode != results.ModeSim {
		c.FirstByteTimeout = client.DefaultFirstByteTimeout
		if d, err := time.ParseDuration(h.Config.Timeout); err == nil && d > 0 {
			c.FirstByteTimeout = d
		}
	}
	if st != nil && st.Reason != results.StopDone && st.Elapsed > 0 {
		c.StopAt = st.Elapsed
	}
	note := ""
	switch {
	case c.StopAt > 0 && c.FirstByteTimeout > 0:
		note = fmt.Sprintf("the measured run was stopped (%s) at %s: the simulation stops there too, with the client's first-byte timeout of %s",
			st.Reason, round(c.StopAt), c.FirstByteTimeout)
	case c.StopAt > 0:
		note = fmt.Sprintf("the measured run was stopped (%s) at %s: the simulation stops there too", st.Reason, round(c.StopAt))
	}
	return c, note
}

// round rounds d to 10 ms for display.
func round(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }

// comparedNote says how many requests each side compares: those that
// finished, and those that timed out or were cut.
func comparedNote(m, p *metrics.Summary) string {
	side := func(s *metrics.Summary) string {
		timedOut, cut := s.Errors[results.ErrTimeout], s.Errors[results.ErrCanceled]
		return fmt.Sprintf("%d requests (%d ok, %d timed out, %d cut by the stop, %d other failures)",
			s.Requests, s.OK, timedOut, cut, s.Requests-s.OK-timedOut-cut)
	}
	return "compared: measured " + side(m) + "; predicted " + side(p)
}
