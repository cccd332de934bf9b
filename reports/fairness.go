package reports

import "math"

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
// service demanded so far (capped at 1), taken at the end of every time
// bucket of the Run and averaged over the buckets where at least two
// users have demand and one has service. Over a whole completed run every
// user receives what it asked, so x is 1 for all and an end-of-run index
// could not vary; over time it shows who was kept waiting: a user whose
// requests sit behind another's has a lower x until served (in the
// spirit of the VTC paper's backlogged-client service comparison, Sheng
// et al., OSDI 2024). NaN with fewer than two users.
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
	x := make([]float64, 0, len(users))
	var total float64
	points := 0
	for i := 0; i < n; i++ {
		x = x[:0]
		for j, u := range users {
			got[j] += at(u.svc, i)
			want[j] += at(u.dem, i)
			if want[j] > 0 {
				x = append(x, min(1, got[j]/want[j]))
			}
		}
		if j := JainIndex(x); len(x) >= 2 && !math.IsNaN(j) {
			total += j
			points++
		}
	}
	if points == 0 {
		return math.NaN()
	}
	return total / float64(points)
}
