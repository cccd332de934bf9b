package plots

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/verdict"
)

// CapacityData is a capacity curve: for each policy, SLA attainment and
// goodput at a series of offered rates, and the attainment a rate must
// reach to count as sustained.
type CapacityData struct {
	// Target is the SLA attainment a rate must reach, in [0, 1].
	Target float64
	// Note adds to the plot's caption (where the points come from).
	Note string
	// Users marks a sweep over concurrent users: the x axis counts
	// users, and goodput has no offered rate to reach.
	Users bool
	// Curves are one per policy, in legend order.
	Curves []verdict.CapacityCurve
}

// Size of the capacity plot.
const (
	capacityPlotW = vg.Inch * 7
	capacityPlotH = vg.Inch * 6
)

// SaveCapacity draws d's capacity curve into path (SVG, or PNG for a
// .png path) and reports whether there was anything to draw; without
// data it writes nothing.
func SaveCapacity(path string, d *CapacityData) (bool, error) {
	return saveIfDrawn(path, capacityPlotW, capacityPlotH, capacityPlot(d))
}

// CapacityFromSweep returns the sweep's capacity curve: every run of
// every policy at its offered rate, with the sweep's target.
func CapacityFromSweep(s *verdict.Sweep) *CapacityData {
	d := &CapacityData{Target: s.Target, Users: s.Vary == verdict.VaryUsers}
	for i := range s.Policies {
		c := verdict.CapacityCurve{Policy: s.Policies[i].Policy}
		for _, st := range s.Policies[i].Steps {
			if st.Summary == nil {
				continue
			}
			c.Points = append(c.Points, verdict.CapacityPoint{Rate: st.Rate, Attainment: st.Summary.SLA.Attainment,
				Goodput: st.Summary.SLA.Goodput, Pass: st.Pass})
		}
		d.Curves = append(d.Curves, c)
	}
	return d
}

// CapacityCaption says how to read the capacity plot ("" without data).
func CapacityCaption(d *CapacityData) string {
	if d == nil {
		return ""
	}
	if d.Users {
		return fmt.Sprintf("Top: SLA attainment of each run against its number of concurrent users, one curve per "+
			"policy; the dashed line is the %s target, and a policy's sustained users are its last point above it. "+
			"Bottom: goodput (SLA-met requests per second). Filled dots passed, crosses failed. A curve that stays up "+
			"further right serves more users.", textfmt.Pct(d.Target))
	}
	c := fmt.Sprintf("Top: SLA attainment of each run against its offered rate, one curve per policy; the dashed "+
		"line is the %s target, and a policy's sustained rate is its last point above it. Bottom: goodput (SLA-met "+
		"requests per second); the grey dashed line is goodput = offered rate, reached only when every request "+
		"meets the SLA (each run replays a fixed number of requests and its goodput counts the drain after the last "+
		"arrival, so it stays a little below). Filled dots passed, crosses failed. A curve that stays up further "+
		"right sustains more load.", textfmt.Pct(d.Target))
	if d.Note != "" {
		c += " " + d.Note
	}
	return c
}

// capacityPlot draws attainment (top) and goodput (bottom) against
// offered rate, one curve per policy, on a log rate axis when the rates
// span more than a factor of 8. No figure without data.
func capacityPlot(d *CapacityData) figure {
	if d == nil {
		return figure{}
	}
	x := "offered rate (req/s)"
	if d.Users {
		x = "concurrent users"
	}
	top := newPlot("SLA attainment", x, "SLA attainment (%)")
	bottom := newPlot("Goodput", x, "goodput (req/s)")
	leg := newLegend()
	lo, hi, gmax := math.Inf(1), 0.0, 1.0
	for i, c := range d.Curves {
		att, good, runs := capacityPoints(c.Points)
		l := newLine(att, i, false)
		if l == nil {
			continue
		}
		lo, hi = math.Min(lo, att[0].X), math.Max(hi, att[len(att)-1].X)
		top.Add(l)
		runs.draw(top, i)
		if gl := newLine(good, i, false); gl != nil {
			bottom.Add(gl)
		}
		for _, g := range good {
			gmax = math.Max(gmax, g.Y)
		}
		leg.add(legendName(c.Policy), l)
	}
	if leg.n == 0 {
		return figure{}
	}
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = lo/1.15, hi*1.15
		if hi/lo > 8 {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = logTicks{}
		}
	}
	top.Y.Min, top.Y.Max = 0, 105
	leg.add(fmt.Sprintf("target %s", textfmt.Pct(d.Target)), addHLine(top, 100*d.Target))
	bottom.Y.Min, bottom.Y.Max = 0, gmax*1.1
	if !d.Users {
		if l := addOffered(bottom, lo, math.Min(hi, bottom.Y.Max)); l != nil {
			leg.add("goodput = offered rate", l)
		}
	}
	addRunKey(leg)
	return figure{grid: [][]*plot.Plot{{top}, {bottom}}, legend: leg}
}

// capacityPoints returns a curve's attainment (%) and goodput lines and
// its runs on the attainment line, sorted by rate; points without a
// rate or an attainment are left out.
func capacityPoints(pts []verdict.CapacityPoint) (att, good plotter.XYs, runs runMarks) {
	pts = slices.Clone(pts)
	slices.SortStableFunc(pts, func(a, b verdict.CapacityPoint) int { return cmp.Compare(a.Rate, b.Rate) })
	for _, p := range pts {
		if math.IsNaN(p.Attainment) || !(p.Rate > 0) {
			continue
		}
		xy := plotter.XY{X: p.Rate, Y: 100 * p.Attainment}
		att = append(att, xy)
		if !math.IsNaN(p.Goodput) {
			good = append(good, plotter.XY{X: p.Rate, Y: p.Goodput})
		}
		runs.add(xy, p.Pass)
	}
	return att, good, runs
}
