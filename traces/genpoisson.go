package traces

import "time"

// poissonSource finishes g as a workload whose sessions start as a
// Poisson process of rate per second, each built by session; it returns
// p's first error instead when a parameter was bad.
func poissonSource(p *params, g *generator, rate float64, session func(g *generator, i int, at time.Duration) []Request) (Source, error) {
	if p.err != nil {
		return nil, p.err
	}
	g.gap, g.session = expGap(rate), session
	return g, nil
}
