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
	cov, _ := sandwich(x, res, keys)
	if cov == nil {
		return se
	}
	out := se
	for j, c := range cols {
		out[c] = math.Sqrt(max(0, cov.At(j, j)))
	}
	return out
}

// sandwich returns the cluster-robust covariance of a least-squares fit
// with design (or Jacobian) J, residuals r and clusters keys (nil when
// the residuals fall in too few clusters; see clusterCov), and the bread
// (JᵀJ)⁻¹ it stands on (nil when JᵀJ is singular).
func sandwich(J *mat.Dense, r []float64, keys []int) (cov, bread *mat.Dense) {
	var jtj, inv mat.Dense
	jtj.Mul(J.T(), J)
	if err := inv.Inverse(&jtj); err != nil {
		return nil, nil
	}
	return clusterCov(J, r, keys, &inv), &inv
}
