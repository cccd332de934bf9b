package calibrate

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// robustSE returns the cluster-robust standard errors of the free columns
// of the step fit th (clusters as row.cluster: one server's requests sent
// within clusterWindow), or se unchanged where the rows fall in too few
// clusters. Requests in flight together share their steps, so their
// equations' errors are not independent: on the recorded two-server CPU
// probe the classical errors, which take them as independent, were about
// 2.5 times smaller, and two probes of the same servers came out 4 to 12
// of them apart. The forward selection of terms keeps the classical
// errors; only the reported ones are these.
func robustSE(rows []row, free [numCols]bool, th, se [numCols]float64) [numCols]float64 {
	cols, x := design(rows, free)
	if x == nil {
		return se
	}
	res := make([]float64, len(rows))
	keys := make([]int, len(rows))
	for i, r := range rows {
		res[i], keys[i] = r.weight()*(r.y-r.predict(th)), r.cluster
	}
	var xtx, inv mat.Dense
	xtx.Mul(x.T(), x)
	if err := inv.Inverse(&xtx); err != nil {
		return se
	}
	cov := clusterCov(x, res, keys, &inv)
	if cov == nil {
		return se
	}
	out := se
	for j, c := range cols {
		out[c] = math.Sqrt(max(0, cov.At(j, j)))
	}
	return out
}
