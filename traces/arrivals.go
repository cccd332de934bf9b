package traces

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival processes for ArrivalOptions.Process.
const (
	ProcessPoisson  = "poisson"
	ProcessGamma    = "gamma"
	ProcessConstant = "constant"
)

// ArrivalOptions set when the Requests of a Source arrive.
type ArrivalOptions struct {
	// TimeScale multiplies the trace's own inter-arrival times and the
	// think times of its turns (0.5 = twice as fast); 0 means 1. Ignored
	// when Rate is set, which paces session starts only.
	TimeScale float64
	// Rate replaces the trace's times by a process of this mean rate in
	// req/s; 0 keeps the trace's times. Requests keep their order, so a
	// session's turns still arrive in order (think times become whatever
	// the process gives).
	Rate float64
	// Process is the inter-arrival distribution with Rate: "poisson"
	// (default; exponential gaps), "gamma" (burstiness CV) or "constant".
	Process string
	// CV is the coefficient of variation of gamma gaps (default 1, which
	// is Poisson; > 1 is burstier): shape 1/CV², mean 1/Rate.
	CV float64
	// MaxRequests stops after this many Requests (0 = no limit).
	MaxRequests int
	// Duration stops at the first Request arriving at or after this
	// offset from the window start, in replay time (after TimeScale or
	// Rate); 0 = no limit.
	Duration time.Duration
	// Start skips the Requests before this offset into the trace (the
	// trace's own times), to replay a window of a long trace. Output
	// Arrival is relative to Start.
	Start time.Duration
	// Seed seeds the Rate process.
	Seed uint64
}

// Validate checks the options, naming the bad one by its field
// ("ArrivalOptions.Rate").
func (o ArrivalOptions) Validate() error {
	switch {
	case o.TimeScale < 0 || math.IsNaN(o.TimeScale) || math.IsInf(o.TimeScale, 0):
		return fmt.Errorf("ArrivalOptions.TimeScale %v: want >= 0", o.TimeScale)
	case o.Rate < 0 || math.IsNaN(o.Rate) || math.IsInf(o.Rate, 0):
		return fmt.Errorf("ArrivalOptions.Rate %v: want >= 0", o.Rate)
	case o.CV < 0 || math.IsNaN(o.CV) || math.IsInf(o.CV, 0):
		return fmt.Errorf("ArrivalOptions.CV %v: want >= 0", o.CV)
	case o.MaxRequests < 0:
		return fmt.Errorf("ArrivalOptions.MaxRequests %d: want >= 0", o.MaxRequests)
	case o.Duration < 0:
		return fmt.Errorf("ArrivalOptions.Duration %v: want >= 0", o.Duration)
	case o.Start < 0:
		return fmt.Errorf("ArrivalOptions.Start %v: want >= 0", o.Start)
	}
	switch o.Process {
	case "", ProcessPoisson, ProcessGamma, ProcessConstant:
		return nil
	}
	return fmt.Errorf("ArrivalOptions.Process %q: want poisson, gamma or constant", o.Process)
}

// WithArrivals returns src with arrival times rewritten by o: the window
// from o.Start, trace times scaled by TimeScale or replaced by a Rate
// process, and ended (io.EOF) by MaxRequests or Duration. Invalid
// options make Next return the Validate error.
func WithArrivals(src Source, o ArrivalOptions) Source {
	a := &arrivals{src: src, o: o, err: o.Validate()}
	if a.o.TimeScale == 0 {
		a.o.TimeScale = 1
	}
	if a.o.CV == 0 {
		a.o.CV = 1
	}
	if a.o.Process == "" {
		a.o.Process = ProcessPoisson
	}
	a.rng = rand.New(rand.NewPCG(o.Seed, 0x617272697661))
	return a
}

// arrivals is the Source WithArrivals returns.
type arrivals struct {
	src  Source
	o    ArrivalOptions
	rng  *rand.Rand
	n    int
	next time.Duration // the next arrival under Rate
	err  error
}

// Next implements Source.
func (a *arrivals) Next() (Request, error) {
	if a.err != nil {
		return Request{}, a.err
	}
	if a.o.MaxRequests > 0 && a.n >= a.o.MaxRequests {
		return a.end()
	}
	r, err := a.src.Next()
	for err == nil && r.Arrival < a.o.Start {
		r, err = a.src.Next()
	}
	if err != nil {
		return Request{}, err
	}
	if a.o.Rate > 0 {
		r.Arrival = a.next
		a.next = addDur(a.next, a.gap())
	} else {
		r.Arrival = nsDur(float64(r.Arrival-a.o.Start) * a.o.TimeScale)
		// A think time is trace time too: it scales with the arrivals.
		r.Think = nsDur(float64(r.Think) * a.o.TimeScale)
	}
	if a.o.Duration > 0 && r.Arrival >= a.o.Duration {
		return a.end()
	}
	a.n++
	return r, nil
}

// end makes every later call return io.EOF.
func (a *arrivals) end() (Request, error) {
	a.err = io.EOF
	return Request{}, io.EOF
}

// gap draws the next inter-arrival time of the Rate process; the first
// Request arrives at 0.
func (a *arrivals) gap() time.Duration {
	mean := 1 / a.o.Rate
	switch a.o.Process {
	case ProcessConstant:
		return secondsDur(mean)
	case ProcessGamma:
		k := 1 / (a.o.CV * a.o.CV)
		return secondsDur(gammaSample(a.rng, k) * mean / k)
	}
	return secondsDur(a.rng.ExpFloat64() * mean)
}

// gammaSample draws from Gamma(shape k, scale 1) by Marsaglia and Tsang
// (ACM TOMS 26(3), 2000), boosting k < 1 by U^(1/k).
func gammaSample(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gammaSample(rng, k+1) * math.Pow(1-rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
