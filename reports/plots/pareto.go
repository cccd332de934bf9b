package plots

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/verdict"
)

// ParetoPoint is one sweep run on the throughput trade-off: what each
// user saw against what each replica delivered.
type ParetoPoint struct {
	// Rate is the run's offered rate (or number of users).
	Rate float64 `json:"rate"`
	// PerUser is the output tokens per second one request saw while it
	// streamed: 1000 / TPOT p50 (ms), the median request's decode rate.
	PerUser float64 `json:"tok_per_s_per_user"`
	// PerReplica is the output tokens per second of the run divided by
	// its replicas (the backends of its header).
	PerReplica float64 `json:"tok_per_s_per_replica"`
	// Pass is whether the run met the sweep's attainment target.
	Pass bool `json:"pass"`
}

// ParetoCurve is one policy's runs, by offered rate.
type ParetoCurve struct {
	Policy string        `json:"policy"`
	Points []ParetoPoint `json:"points"`
}

// ParetoData is a sweep's throughput trade-off, one curve per policy.
type ParetoData struct {
	Curves []ParetoCurve `json:"curves"`
}

// ParetoFromSweep takes each run of the sweep onto the trade-off; runs
// without TPOT, output tokens or backends are left out, and so is a
// policy with none left (nil when no policy has a point).
func ParetoFromSweep(s *verdict.Sweep) *ParetoData {
	d := &ParetoData{}
	for _, p := range s.Policies {
		c := ParetoCurve{Policy: p.Policy}
		for _, st := range p.Steps {
			if pt, ok := paretoPoint(st); ok {
				c.Points = append(c.Points, pt)
			}
		}
		slices.SortStableFunc(c.Points, func(a, b ParetoPoint) int { return cmp.Compare(a.Rate, b.Rate) })
		if len(c.Points) > 0 {
			d.Curves = append(d.Curves, c)
		}
	}
	if len(d.Curves) == 0 {
		return nil
	}
	return d
}

// paretoPoint is a step's point (ok false when it has no figures).
func paretoPoint(st verdict.SweepStep) (ParetoPoint, bool) {
	s := st.Summary
	if s == nil || len(s.Header.Backends) == 0 || s.TPOT.Count == 0 || !(s.TPOT.P50 > 0) ||
		!(s.Throughput.OutputTokens > 0) {
		return ParetoPoint{}, false
	}
	return ParetoPoint{Rate: st.Rate, Pass: st.Pass, PerUser: 1000 / s.TPOT.P50,
		PerReplica: s.Throughput.OutputTokens / float64(len(s.Header.Backends))}, true
}

// ParetoCaption says how to read the Pareto plot.
const ParetoCaption = "Each point is one run of the sweep: the output tokens per second one request saw while it " +
	"streamed (1000 / TPOT p50) against the output tokens per second each replica delivered, one line per policy " +
	"through its runs by offered load. More load moves a line right and down: replicas do more while each user " +
	"gets less. A line further up and to the right serves its users faster at the same load per replica. " +
	"Dots are runs that met the attainment target, crosses runs that did not."

// paretoPlot draws one line per policy (no panels when d is nil).
func paretoPlot(d *ParetoData) figure {
	if d == nil {
		return figure{}
	}
	p := newPlot("Throughput per user against throughput per replica", "output tokens/s per replica",
		"output tokens/s per user")
	leg := newLegend()
	ymax, xmax := 0.0, 0.0
	for i, c := range d.Curves {
		var pts plotter.XYs
		var runs runMarks
		for _, pt := range c.Points {
			xy := plotter.XY{X: pt.PerReplica, Y: pt.PerUser}
			pts = append(pts, xy)
			runs.add(xy, pt.Pass)
			xmax, ymax = math.Max(xmax, xy.X), math.Max(ymax, xy.Y)
		}
		l := newLine(pts, i, false)
		if l == nil {
			continue
		}
		p.Add(l)
		runs.draw(p, i)
		leg.add(legendName(c.Policy), l)
	}
	if leg.n == 0 {
		return figure{}
	}
	p.X.Min, p.X.Max = 0, xmax*1.1
	p.Y.Min, p.Y.Max = 0, ymax*1.1
	addRunKey(leg)
	return figure{grid: [][]*plot.Plot{{p}}, legend: leg}
}

// SavePareto draws d's Pareto plot into path (SVG, or PNG for a .png
// path) and reports whether there was anything to draw; without data it
// writes nothing.
func SavePareto(path string, d *ParetoData) (bool, error) {
	return saveIfDrawn(path, paretoPlotW, paretoPlotH, paretoPlot(d))
}

// Size of the Pareto plot.
const (
	paretoPlotW = vg.Inch * 7
	paretoPlotH = vg.Inch * 5
)
