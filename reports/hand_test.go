package reports

import (
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

const ms1 = time.Millisecond

// handRun is five Results whose figures are worked out by hand in
// metrics.TestAccumulatorHandComputed (testfixtures.HandRun).
var handRun = testfixtures.HandRun

// summarizeHand is handRun finished as a run that stopped when done.
func summarizeHand(o metrics.Options) *metrics.Summary { return finishHand(o, testfixtures.HandStop()) }

// finishHand folds handRun's Results with options o and finishes with
// the stop line stop (nil for a killed run).
func finishHand(o metrics.Options, stop *results.Stop) *metrics.Summary {
	h, rs := handRun()
	a := metrics.NewAccumulator(h, o)
	for _, r := range rs {
		a.Add(r)
	}
	return a.Finish(stop)
}
