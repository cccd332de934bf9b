package traces

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Values of ReadOptions.Windows.
const (
	// WindowsOne reads the trace as one time window: arrival times must
	// not decrease (the default).
	WindowsOne = "one"
	// WindowsSequential reads a trace whose time restarts (a file of
	// several windows, each timed from its own start, such as RAGPulse's
	// data/0_trace.jsonl of two one-week windows) as its windows one after
	// another: each time the arrival time falls, a new window begins, and
	// its arrivals are offset by the previous window's last arrival.
	WindowsSequential = "sequential"
)

// WindowModes lists the values of ReadOptions.Windows.
var WindowModes = []string{WindowsOne, WindowsSequential}

// windowFormats are the formats whose readers leave the time order to
// FileSource, so that --windows sequential applies to them.
var windowFormats = []string{FormatNative, FormatBailian, FormatRAGPulse, FormatVTC, FormatAzure, FormatBurstGPT}

// checkWindows validates windows ("" is WindowsOne) for format.
func checkWindows(format, windows string) (sequential bool, err error) {
	switch windows {
	case "", WindowsOne:
		return false, nil
	case WindowsSequential:
		if !slices.Contains(windowFormats, format) {
			return false, fmt.Errorf("ReadOptions.Windows sequential: the %s format has no restarting time windows (it applies to %s)",
				format, strings.Join(windowFormats, ", "))
		}
		return true, nil
	}
	return false, fmt.Errorf("ReadOptions.Windows %q: want %s", windows, strings.Join(WindowModes, " or "))
}

// windowClock keeps a trace's arrival order: raw is the last arrival in
// the file's own time, offset what the current window's arrivals are
// shifted by, windows how many windows began after the first.
type windowClock struct {
	sequential bool
	raw        time.Duration
	offset     time.Duration
	windows    int
}

// place shifts a record's arrival into the current window, starting a
// new window when time falls and windows are sequential; otherwise a
// fall is an error for the record's line.
func (c *windowClock) place(arrival time.Duration) (time.Duration, error) {
	if arrival < c.raw {
		if !c.sequential {
			return 0, fmt.Errorf("arrival %v before the previous record's %v: sort the trace by time, or, "+
				"when its time restarts at each of several windows, replay them one after another with ReadOptions.Windows sequential",
				arrival, c.raw)
		}
		c.offset += c.raw
		c.windows++
	}
	c.raw = arrival
	return arrival + c.offset, nil
}
