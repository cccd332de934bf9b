package verdict

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Alone is the capacity of the only router of a DecideSpec that names
// one: there is nothing to decide between, so Decide measures its
// capacity in stage 1 and runs no stage 2.
type Alone struct {
	// Policy is the router's policy name (with its queue when not fcfs).
	Policy string
	// Sustained is its capacity on each of stage 1's seeds, req/s: the
	// highest offered rate at which the SLA's attainment was met.
	Sustained []float64
	// Mean is their mean, req/s; Lo and Hi bound its 95 % Student-t
	// confidence interval, req/s, Lo at least 0 (both NaN with one seed).
	Mean, Lo, Hi float64
}

// NewAlone summarizes policy's capacity over the seeds of sustained.
func NewAlone(policy string, sustained []float64) *Alone {
	a := &Alone{Policy: policy, Sustained: sustained, Mean: stat.Mean(sustained, nil)}
	a.Lo, a.Hi = meanCI(sustained)
	if !math.IsNaN(a.Lo) {
		a.Lo = max(0, a.Lo)
	}
	return a
}

// Text says there is nothing to decide and states the capacity, as
// "nothing to decide: random is the only router; it sustains 12.3 req/s
// (95 % CI 10.1 to 14.5 req/s over 5 seeds)".
func (a *Alone) Text() string {
	ci := fmt.Sprintf("on %d seed", len(a.Sustained))
	if !math.IsNaN(a.Lo) {
		ci = fmt.Sprintf("95 %% CI %.3g to %.3g req/s over %d seeds", a.Lo, a.Hi, len(a.Sustained))
	}
	return fmt.Sprintf("nothing to decide: %s is the only router; it sustains %.3g req/s (%s)", a.Policy, a.Mean, ci)
}
