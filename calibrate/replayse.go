package calibrate

import (
	"errors"
	"math"
	"time"

	"gonum.org/v1/gonum/mat"
)

// seStep is the log-space step of the finite differences the standard
// errors take (±5 % of each term).
const seStep = 0.05

// errSEUnstable is returned when a perturbed replay finishes a different
// set of requests, so the residuals do not line up.
var errSEUnstable = errors.New("a perturbed replay finished other requests")

// clusterWindow is the span of the time blocks whose residuals the
// standard errors take as one cluster: requests of one server sent within
// the same 5 s share its state (a stall, a slot save, a batch), so their
// errors are not independent.
const clusterWindow = 5 * time.Second

// clusterOf is the cluster of a request of replay set s sent at sent.
func clusterOf(s int, sent time.Duration) int {
	return s<<32 | int(sent/clusterWindow)
}

// residuals returns the log ratios (simulated over measured) of every
// pair the loss sees, at the free terms x (log values), and each one's
// cluster.
func (f *replayFit) residuals(x []float64) ([]float64, []int, error) {
	ttft, tpot, prompt, keys, err := f.pairsKeyed(f.with(x))
	if err != nil {
		return nil, nil, err
	}
	var r []float64
	var k []int
	for g, group := range [][][2]float64{ttft, tpot, prompt} {
		for _, p := range group {
			r = append(r, math.Log(p[0])-math.Log(p[1]))
		}
		k = append(k, keys[g]...)
	}
	return r, k, nil
}

// stdErrs returns the standard error of each free term at f.cfg, in the
// term's own units (seconds, or 1), from the log ratios' Jacobian J (by
// central differences in log space), carried to the term's value
// (se(v) = v · se(ln v)). The covariance is the cluster-robust sandwich
// (JᵀJ)⁻¹ (Σ_g J_gᵀ r_g r_gᵀ J_g) (JᵀJ)⁻¹ · G/(G − 1) over the G clusters
// of clusterOf: the requests of a block share the server's state, and the
// Gauss–Newton σ²(JᵀJ)⁻¹, which takes every residual as independent, gave
// the two halves of one recorded probe slot-save costs 4 of its standard
// errors apart. With too few clusters (G ≤ 2p) it falls back to the
// Gauss–Newton covariance, σ² the mean square residual over n − p degrees
// of freedom. NaN where neither can be had (too few residuals, a singular
// JᵀJ, residuals that do not line up).
func (f *replayFit) stdErrs() []float64 {
	return valueErrs(f.logCov())
}

// valueErrs carries the log values' covariance to the values' standard
// errors, se(v) = v · se(ln v) (NaN where cov is nil or a variance
// negative).
func valueErrs(x []float64, cov *mat.Dense) []float64 {
	out := make([]float64, len(x))
	for i, xi := range x {
		out[i] = math.NaN()
		if cov == nil {
			continue
		}
		if v := cov.At(i, i); v >= 0 {
			out[i] = math.Exp(xi) * math.Sqrt(v)
		}
	}
	return out
}

// logCov returns the free terms' log values at f.cfg and their
// covariance (stdErrs' sandwich, in log space), nil where it cannot be
// had.
func (f *replayFit) logCov() ([]float64, *mat.Dense) {
	x := f.x()
	r0, keys, err := f.residuals(x)
	if err != nil || len(r0) <= len(x) {
		return x, nil
	}
	J, err := f.jacobian(x, len(r0))
	if err != nil {
		return x, nil
	}
	cov, bread := sandwich(J, r0, keys)
	if bread == nil {
		return x, nil
	}
	if cov == nil {
		cov = gaussNewtonCov(r0, len(x), bread)
	}
	return x, cov
}

// gaussNewtonCov is σ²(JᵀJ)⁻¹ for p terms, bread being (JᵀJ)⁻¹.
func gaussNewtonCov(r []float64, p int, bread *mat.Dense) *mat.Dense {
	ss := 0.0
	for _, v := range r {
		ss += v * v
	}
	var cov mat.Dense
	cov.Scale(ss/float64(len(r)-p), bread)
	return &cov
}

// clusterCov is the cluster-robust sandwich covariance, nil when the
// residuals fall in 2p clusters or fewer.
func clusterCov(J *mat.Dense, r []float64, keys []int, bread *mat.Dense) *mat.Dense {
	_, p := J.Dims()
	if len(keys) != len(r) {
		return nil
	}
	score := map[int][]float64{} // Σ over a cluster of J_i r_i
	for i, v := range r {
		u := score[keys[i]]
		if u == nil {
			u = make([]float64, p)
			score[keys[i]] = u
		}
		for k := range p {
			u[k] += J.At(i, k) * v
		}
	}
	g := len(score)
	if g <= 2*p {
		return nil
	}
	meat := mat.NewDense(p, p, nil)
	for _, u := range score {
		v := mat.NewVecDense(p, u)
		var outer mat.Dense
		outer.Outer(1, v, v)
		meat.Add(meat, &outer)
	}
	var tmp, cov mat.Dense
	tmp.Mul(bread, meat)
	cov.Mul(&tmp, bread)
	cov.Scale(float64(g)/float64(g-1), &cov)
	return &cov
}

// jacobian returns the n × p derivatives of the residuals by central
// differences.
func (f *replayFit) jacobian(x []float64, n int) (*mat.Dense, error) {
	J := mat.NewDense(n, len(x), nil)
	for k := range x {
		up, down := append([]float64(nil), x...), append([]float64(nil), x...)
		up[k] += seStep
		down[k] -= seStep
		ru, _, err := f.residuals(up)
		if err != nil {
			return nil, err
		}
		rd, _, err := f.residuals(down)
		if err != nil {
			return nil, err
		}
		if len(ru) != n || len(rd) != n {
			return nil, errSEUnstable
		}
		for i := range n {
			J.Set(i, k, (ru[i]-rd[i])/(2*seStep))
		}
	}
	return J, nil
}
