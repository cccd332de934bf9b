package metrics

import (
	"cmp"
	"math"
	"slices"
)

// JainIndex is Jain's fairness index (Σx)² / (n·Σx²) of x: 1 when every
// value is equal, 1/n when one value holds everything (Jain, Chiu and
// Hawe, DEC-TR-301, 1984). NaN for no values or all zeros.
func JainIndex(x []float64) float64 {
	var sum, sq float64
	for _, v := range x {
		sum += v
		sq += v * v
	}
	if len(x) == 0 || sq == 0 {
		return math.NaN()
	}
	return sum * sum / (float64(len(x)) * sq)
}

// ServiceDifference is the VTC service difference of one window, as in
// the VTC artifact's analysis (Sheng et al., OSDI 2024): with served[j]
// the service user j received and asked[j] the service it demanded in
// the window, it is max over j of min(max_k served[k] − served[j],
// asked[j] − served[j]) — a user counts as short-changed only by as much
// as it asked for. Negative values (every user got at least what it
// asked) are reported as 0. Units are those of the inputs.
func ServiceDifference(served, asked []float64) float64 {
	if len(served) == 0 {
		return 0
	}
	top := served[0]
	for _, s := range served {
		top = max(top, s)
	}
	diff := 0.0
	for j, s := range served {
		diff = max(diff, min(top-s, asked[j]-s))
	}
	return diff
}

// CoefficientOfVariation is the population standard deviation of x over
// its mean; 0 for no values or a zero mean.
func CoefficientOfVariation(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var sum float64
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	if mean == 0 {
		return 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss/float64(len(x))) / mean
}

// serviceDiffs returns the max and mean service difference (weighted
// tokens per second) over the fairness windows of the measured span.
// Window i's figures are divided by its length (the last one may be
// partial).
func (a *Accumulator) serviceDiffs(span float64) (maxDiff, meanDiff float64) {
	w := a.o.FairnessWindow.Seconds()
	n := int(min(math.Ceil(span/w), maxFairnessWindows))
	if n == 0 || len(a.users) < 2 {
		return 0, 0
	}
	served := make([]float64, 0, len(a.users))
	asked := make([]float64, 0, len(a.users))
	var sum float64
	for i := 0; i < n; i++ {
		length := min(w, span-float64(i)*w)
		served, asked = served[:0], asked[:0]
		for _, u := range a.users {
			served = append(served, at(u.served, i)/length)
			asked = append(asked, at(u.asked, i)/length)
		}
		d := ServiceDifference(served, asked)
		maxDiff = max(maxDiff, d)
		sum += d
	}
	return maxDiff, sum / float64(n)
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// jainOverTime is Jain's index over users' x = service received so far /
// their max-min fair share of it, taken at the end of every time bucket
// of the Run and averaged over the buckets where two or more users have
// demand and some service was given. The fair share divides the service
// given so far by water-filling over the service demanded so far: a user
// that asked for less than an equal split is owed all it asked, the
// others share the rest equally — the allocation Jain, Chiu and Hawe
// normalise by, and the fairness VTC targets (Sheng et al., OSDI 2024).
// Serving a heavy user in proportion to its demand while a light one
// waits lowers the index; equal service among backlogged users keeps it
// at 1. At the end of a completed run every user has received what it
// asked, so an end-of-run index could not vary; over time it shows who
// was kept waiting. NaN with fewer than two users.
func (a *Accumulator) jainOverTime() float64 {
	if len(a.users) < 2 {
		return math.NaN()
	}
	type sums struct{ svc, dem []float64 }
	users := make([]sums, 0, len(a.users))
	n := 0
	for _, u := range a.users {
		// Copies covered to the Run's end share one bucket width.
		s, d := u.svc.clone(), u.dem.clone()
		s.cover(a.lastDone)
		d.cover(a.lastDone)
		users = append(users, sums{s.sum, d.sum})
		n = max(n, len(s.sum), len(d.sum))
	}
	got, want := make([]float64, len(users)), make([]float64, len(users))
	var gotNow, wantNow []float64
	var total float64
	points := 0
	for i := 0; i < n; i++ {
		gotNow, wantNow = gotNow[:0], wantNow[:0]
		for j, u := range users {
			got[j] += at(u.svc, i)
			want[j] += at(u.dem, i)
			if want[j] > 0 {
				gotNow, wantNow = append(gotNow, got[j]), append(wantNow, want[j])
			}
		}
		if len(gotNow) < 2 {
			continue
		}
		if j := jainOfShares(gotNow, wantNow); !math.IsNaN(j) {
			total += j
			points++
		}
	}
	if points == 0 {
		return math.NaN()
	}
	return total / float64(points)
}

// jainOfShares is Jain's index of got[j] / fair[j], with fair the
// max-min fair split of Σ got over the demands want (MaxMinShares); NaN
// when nothing was given.
func jainOfShares(got, want []float64) float64 {
	var given float64
	for _, g := range got {
		given += g
	}
	if given <= 0 {
		return math.NaN()
	}
	fair := MaxMinShares(given, want)
	x := make([]float64, len(got))
	for j := range got {
		x[j] = got[j] / fair[j]
	}
	return JainIndex(x)
}

// MaxMinShares splits total over users demanding want by water-filling:
// users are filled equally, none beyond its demand, until total is
// spent; when total exceeds every demand each gets its demand. Demands
// must be positive.
func MaxMinShares(total float64, want []float64) []float64 {
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(want[a], want[b]) })
	out := make([]float64, len(want))
	left := total
	for k, i := range order {
		level := left / float64(len(order)-k)
		out[i] = min(want[i], level)
		left -= out[i]
	}
	return out
}
