package calibrate

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// seStep is the log-space step of the finite differences the standard
// errors take (±5 % of each term).
const seStep = 0.05

// errSEUnstable is returned when a perturbed replay finishes a different
// set of requests, so the residuals do not line up.
var errSEUnstable = errors.New("a perturbed replay finished other requests")

// residuals returns the log ratios (simulated over measured) of every
// pair the loss sees, at the free terms x (log values).
func (f *replayFit) residuals(x []float64) ([]float64, error) {
	ttft, tpot, prompt, err := f.pairs(f.with(x))
	if err != nil {
		return nil, err
	}
	var r []float64
	for _, group := range [][][2]float64{ttft, tpot, prompt} {
		for _, p := range group {
			r = append(r, math.Log(p[0])-math.Log(p[1]))
		}
	}
	return r, nil
}

// stdErrs returns the standard error of each free term at f.cfg, in the
// term's own units (seconds, or 1): the Gauss–Newton covariance
// σ²(JᵀJ)⁻¹ of the log ratios, J by central differences in log space,
// σ² the mean square residual over n − p degrees of freedom, carried to
// the term's value (se(v) = v · se(ln v)). NaN where it cannot be had
// (too few residuals, a singular JᵀJ, residuals that do not line up).
func (f *replayFit) stdErrs() []float64 {
	x := f.x()
	out := make([]float64, len(x))
	for i := range out {
		out[i] = math.NaN()
	}
	r0, err := f.residuals(x)
	if err != nil || len(r0) <= len(x) {
		return out
	}
	J, err := f.jacobian(x, len(r0))
	if err != nil {
		return out
	}
	var jtj, cov mat.Dense
	jtj.Mul(J.T(), J)
	if err := cov.Inverse(&jtj); err != nil {
		return out
	}
	ss := 0.0
	for _, v := range r0 {
		ss += v * v
	}
	s2 := ss / float64(len(r0)-len(x))
	for i, xi := range x {
		if v := cov.At(i, i); v >= 0 {
			out[i] = math.Exp(xi) * math.Sqrt(s2*v)
		}
	}
	return out
}

// jacobian returns the n × p derivatives of the residuals by central
// differences.
func (f *replayFit) jacobian(x []float64, n int) (*mat.Dense, error) {
	J := mat.NewDense(n, len(x), nil)
	for k := range x {
		up, down := append([]float64(nil), x...), append([]float64(nil), x...)
		up[k] += seStep
		down[k] -= seStep
		ru, err := f.residuals(up)
		if err != nil {
			return nil, err
		}
		rd, err := f.residuals(down)
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
