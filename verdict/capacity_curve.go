package verdict

// CapacityCurve is one policy's points.
type CapacityCurve struct {
	// Policy names the curve.
	Policy string
	// Points are the policy's runs, in any order.
	Points []CapacityPoint
	// Sustained is the highest passing rate found, req/s (0: none, or
	// not known).
	Sustained float64
}

// CapacityPoint is one run at an offered rate.
type CapacityPoint struct {
	// Rate is the offered rate, req/s.
	Rate float64
	// Attainment is the SLA attainment, in [0, 1] (NaN: unknown).
	Attainment float64
	// Goodput is SLA-met requests per second (NaN: unknown).
	Goodput float64
	// Pass says the run counted as sustained.
	Pass bool
}
