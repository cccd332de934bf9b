package calibrate

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// SaveCost is the slot-switch save's cost as the servers' logs measured
// it: a least-squares line of each update's time on the tokens it
// saved, over the updates that copied a prompt and restored none (a
// restore's copy is in the same measured time).
type SaveCost struct {
	// Fixed and PerToken are the line's terms in seconds and seconds per
	// token, with their standard errors.
	Fixed, PerToken     float64
	FixedSE, PerTokenSE float64
	// N is the updates the line was fitted on; Logs the logs read.
	N, Logs int
}

// minSaveUpdates is the fewest clean saves a cost is fitted on.
const minSaveUpdates = 10

// minSaveSpread is the least spread (standard deviation, tokens) of the
// saved lengths that identifies the per-token term; below it the cost
// is their mean time alone.
const minSaveSpread = 16

// errFewSaves says the logs hold too few saves to price one.
var errFewSaves = errors.New("too few saves")

// SaveCostOf fits the save's cost over every log's clean saves: their
// mean time alone (PerToken 0) where the saved lengths barely vary or
// the line would give a term below 0.
func SaveCostOf(logs []SaveLog) (SaveCost, error) {
	var x, y []float64
	for _, l := range logs {
		for _, u := range l.Updates {
			if u.Copied() && !u.Restored {
				x, y = append(x, float64(u.Saved)), append(y, u.Took.Seconds())
			}
		}
	}
	c := SaveCost{N: len(x), Logs: len(logs)}
	if len(x) < minSaveUpdates {
		return c, fmt.Errorf("%w: %d updates saved a prompt and restored none, want at least %d", errFewSaves, len(x), minSaveUpdates)
	}
	n := float64(len(x))
	flat := func() (SaveCost, error) {
		c.Fixed, c.PerToken, c.PerTokenSE = stat.Mean(y, nil), 0, 0
		c.FixedSE = stat.StdDev(y, nil) / math.Sqrt(n)
		return c, nil
	}
	if stat.StdDev(x, nil) < minSaveSpread {
		return flat()
	}
	if c.Fixed, c.PerToken = stat.LinearRegression(x, y, nil, false); c.PerToken < 0 || c.Fixed < 0 {
		return flat() // a save does not cost less for more tokens, nor below nothing: the mean time
	}
	var rss float64
	for i := range x {
		rss += sq(y[i] - c.Fixed - c.PerToken*x[i])
	}
	s2 := rss / (n - 2)
	mx, vx := stat.MeanVariance(x, nil)
	sxx := vx * (n - 1)
	c.PerTokenSE = math.Sqrt(s2 / sxx)
	c.FixedSE = math.Sqrt(s2 * (1/n + mx*mx/sxx))
	return c, nil
}

// String says the cost in the units the fit prints.
func (c SaveCost) String() string {
	return fmt.Sprintf("%.3f ± %.3f ms + %.3f ± %.3f us a token, over %d saves in %d servers' logs",
		c.Fixed*1e3, c.FixedSE*1e3, c.PerToken*1e6, c.PerTokenSE*1e6, c.N, c.Logs)
}
