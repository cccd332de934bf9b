package metrics

import (
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

const ms1 = time.Millisecond

// handRun is five Results whose figures are worked out by hand in
// TestAccumulatorHandComputed (testfixtures.HandRun).
var handRun = testfixtures.HandRun

// summarizeHand is handRun finished as a run that stopped when done.
func summarizeHand(o Options) *Summary { return finishHand(o, testfixtures.HandStop()) }

// finishHand folds handRun's Results with options o and finishes with
// the stop line stop (nil for a killed run).
func finishHand(o Options, stop *results.Stop) *Summary {
	h, rs := handRun()
	a := NewAccumulator(h, o)
	for _, r := range rs {
		a.Add(r)
	}
	return a.Finish(stop)
}
