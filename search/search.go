// Package search finds the highest rate a system sustains at a target
// SLA attainment, by bracketing and bisection or over a fixed ladder of
// rates, given a function that measures the attainment at a rate.
package search

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Options configure the search for the highest sustained rate.
type Options struct {
	// Target is the SLA attainment a rate must reach (default 0.9).
	Target float64
	// Start is the first rate tried in req/s (default 1).
	Start float64
	// Growth multiplies the rate while bracketing (default 2).
	Growth float64
	// Tolerance stops bisection when hi/lo ≤ 1 + Tolerance, so the answer
	// is within Tolerance of the true boundary (default 0.04).
	Tolerance float64
	// MaxRuns bounds the evaluations (default 12).
	MaxRuns int
	// MinRate and MaxRate bound the search in req/s (defaults 0.01, 1e5).
	MinRate, MaxRate float64
	// Step, when > 0, makes every value tried a multiple of Step (at
	// least Step): a search over whole users takes Step 1. The search
	// also ends when the bracket is one Step wide.
	Step float64
}

// quantize rounds rate to a multiple of o.Step (unchanged without one).
func (o Options) quantize(rate float64) float64 {
	if o.Step <= 0 {
		return rate
	}
	return math.Max(o.Step, math.Round(rate/o.Step)*o.Step)
}

// narrow reports whether [lo, hi] is within the tolerance or one Step.
func (o Options) narrow(lo, hi float64) bool {
	return hi/lo <= 1+o.Tolerance || o.Step > 0 && hi-lo <= o.Step*1.0000001
}

func (o Options) withDefaults() Options {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Target, 0.9)
	def(&o.Start, 1)
	def(&o.Growth, 2)
	def(&o.Tolerance, 0.04)
	def(&o.MinRate, 0.01)
	def(&o.MaxRate, 1e5)
	if o.MaxRuns <= 0 {
		o.MaxRuns = 12
	}
	return o
}

// RateProbe is one evaluated rate.
type RateProbe struct {
	// Rate is the offered rate in req/s.
	Rate float64
	// Attainment is the measured SLA attainment in [0,1].
	Attainment float64
	// Pass is Attainment ≥ Target.
	Pass bool
}

// Result is the outcome of FindSustainedRate.
type Result struct {
	// Sustained is the highest passing rate found (0 when none passed).
	Sustained float64
	// Broken is the lowest failing rate found (0 when none failed).
	Broken float64
	// Probes lists every evaluation in the order run.
	Probes []RateProbe
	// Converged is false when MaxRuns or the rate bounds stopped the
	// search before hi/lo reached 1 + Tolerance.
	Converged bool
}

// ErrStop, returned by an evaluation, ends the search at once with
// what was found (e.g. the error rate passed its limit on a live fleet).
var ErrStop = errors.New("search stopped")

// FindSustainedRate brackets and bisects (geometrically) the highest rate
// whose SLA attainment stays ≥ Target, assuming attainment falls as the
// rate rises. eval runs the workload at a rate and returns its attainment.
// The sequence of rates depends only on the attainments seen, so a
// deterministic eval gives a deterministic search.
func FindSustainedRate(eval func(rate float64) (float64, error), o Options) (Result, error) {
	o = o.withDefaults()
	s := &searcher{eval: eval, o: o}
	err := s.bracket()
	if err == nil {
		err = s.bisect()
	}
	if errors.Is(err, ErrStop) {
		err = nil
	}
	return s.result(), err
}

type searcher struct {
	eval   func(float64) (float64, error)
	o      Options
	probes []RateProbe
	lo, hi float64 // highest pass, lowest fail (0 = none yet)
}

func (s *searcher) try(rate float64) (bool, error) {
	if len(s.probes) >= s.o.MaxRuns {
		return false, ErrStop
	}
	a, err := s.eval(rate)
	if err != nil {
		return false, fmt.Errorf("rate %.4g req/s: %w", rate, err)
	}
	p := RateProbe{Rate: rate, Attainment: a, Pass: a >= s.o.Target}
	s.probes = append(s.probes, p)
	if p.Pass && rate > s.lo {
		s.lo = rate
	}
	if !p.Pass && (s.hi == 0 || rate < s.hi) {
		s.hi = rate
	}
	return p.Pass, nil
}

// bracket finds lo (pass) and hi (fail) a Growth factor apart.
func (s *searcher) bracket() error {
	rate := s.o.quantize(math.Min(math.Max(s.o.Start, s.o.MinRate), s.o.MaxRate))
	pass, err := s.try(rate)
	for err == nil {
		next := rate / s.o.Growth
		if pass {
			next = rate * s.o.Growth
		}
		next = s.o.quantize(next)
		if next == rate {
			return nil // at the lowest Step: nothing lower to try
		}
		if (pass && s.hi > 0) || (!pass && s.lo > 0) || next > s.o.MaxRate || next < s.o.MinRate {
			return nil
		}
		rate = next
		pass, err = s.try(rate)
	}
	return err
}

// bisect narrows [lo, hi] geometrically to the tolerance.
func (s *searcher) bisect() error {
	for s.lo > 0 && s.hi > 0 && !s.o.narrow(s.lo, s.hi) {
		mid := s.o.quantize(math.Sqrt(s.lo * s.hi))
		if mid <= s.lo || mid >= s.hi {
			mid = s.lo + s.o.Step
		}
		if _, err := s.try(mid); err != nil {
			return err
		}
	}
	return nil
}

func (s *searcher) result() Result {
	r := Result{Sustained: s.lo, Broken: s.hi, Probes: s.probes}
	r.Converged = s.lo > 0 && s.hi > 0 && s.o.narrow(s.lo, s.hi)
	return r
}

// Ladder evaluates a fixed list of rates (sorted ascending) and returns
// the highest passing rate below the first failure, for comparison with
// the search.
func Ladder(eval func(rate float64) (float64, error), rates []float64, target float64) (Result, error) {
	rs := append([]float64(nil), rates...)
	sort.Float64s(rs)
	var r Result
	for _, rate := range rs {
		a, err := eval(rate)
		if err != nil {
			return r, fmt.Errorf("rate %.4g req/s: %w", rate, err)
		}
		p := RateProbe{Rate: rate, Attainment: a, Pass: a >= target}
		r.Probes = append(r.Probes, p)
		if !p.Pass {
			r.Broken = rate
			break
		}
		r.Sustained = rate
	}
	r.Converged = true
	return r, nil
}
