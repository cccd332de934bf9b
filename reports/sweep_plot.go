package reports

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Size of the sweep plot.
const (
	sweepPlotW = vg.Inch * 7
	sweepPlotH = vg.Inch * 6
)

// sweepCaption says how to read the sweep plot.
func sweepCaption(s *Sweep) string {
	return fmt.Sprintf("Top: SLA attainment of each run against its offered rate, one curve per policy; the dashed "+
		"line is the %s target, and a policy's sustained rate is its last point above it. Bottom: goodput (SLA-met "+
		"requests per second); the grey dashed line is goodput = offered rate, reached only when every request "+
		"meets the SLA (each run replays a fixed number of requests and its goodput counts the drain after the last "+
		"arrival, so it stays a little below). Filled dots passed, crosses failed. A curve that stays up further "+
		"right sustains more load.",
		fmtPct(s.Target))
}

// sweepPlot draws attainment (top) and goodput (bottom) against offered
// rate, one curve per policy, on a log rate axis when the rates span more
// than a factor of 8.
func sweepPlot(s *Sweep) figure {
	top := newPlot("SLA attainment", "offered rate (req/s)", "SLA attainment (%)")
	bottom := newPlot("Goodput", "offered rate (req/s)", "goodput (req/s)")
	leg := newLegend()
	lo, hi := math.Inf(1), 0.0
	for i := range s.Policies {
		att, good, pass, fail := sweepPoints(s.Policies[i].sorted())
		if len(att) == 0 {
			continue
		}
		lo, hi = math.Min(lo, att[0].X), math.Max(hi, att[len(att)-1].X)
		l := newLine(att, i, false)
		if l == nil {
			continue
		}
		top.Add(l)
		addMarks(top, pass, i, false)
		addMarks(top, fail, i, true)
		if gl := newLine(good, i, false); gl != nil {
			bottom.Add(gl)
		}
		leg.add(legendName(s.Policies[i].Policy), l)
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
	leg.add(fmt.Sprintf("target %s", fmtPct(s.Target)), addHLine(top, 100*s.Target))
	bottom.Y.Min, bottom.Y.Max = 0, bottomMax(s)*1.1
	if l := addOffered(bottom, lo, math.Min(hi, bottom.Y.Max)); l != nil {
		leg.add("goodput = offered rate", l)
	}
	leg.add("run passed", markGlyph(color.Black, false))
	leg.add("run failed", markGlyph(color.Black, true))
	return figure{grid: [][]*plot.Plot{{top}, {bottom}}, legend: leg}
}

// sweepPoints returns a policy's attainment and goodput curves and its
// passing and failing points, steps sorted by rate.
func sweepPoints(steps []SweepStep) (att, good, pass, fail plotter.XYs) {
	for _, st := range steps {
		if st.Summary == nil || math.IsNaN(st.Summary.SLA.Attainment) || !(st.Rate > 0) {
			continue
		}
		xy := plotter.XY{X: st.Rate, Y: 100 * st.Summary.SLA.Attainment}
		att = append(att, xy)
		if !math.IsNaN(st.Summary.SLA.Goodput) {
			good = append(good, plotter.XY{X: st.Rate, Y: st.Summary.SLA.Goodput})
		}
		if st.Pass {
			pass = append(pass, xy)
		} else {
			fail = append(fail, xy)
		}
	}
	return att, good, pass, fail
}

// addMarks adds the points to p as dots (pass) or crosses (fail) in
// colour i.
func addMarks(p *plot.Plot, pts plotter.XYs, i int, failed bool) {
	sc, err := plotter.NewScatter(pts)
	if err != nil || len(pts) == 0 {
		return
	}
	sc.GlyphStyle = markGlyph(lineColor(i), failed).GlyphStyle
	p.Add(sc)
}

// markGlyph is the mark of a passed run (a dot) or a failed one (a
// cross) in colour c; it also serves as the legend's thumbnail.
func markGlyph(c color.Color, failed bool) glyphThumb {
	g := draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	if failed {
		g.Shape = draw.CrossGlyph{}
	}
	return glyphThumb{g}
}

// glyphThumb draws one glyph in the middle of a legend thumbnail.
type glyphThumb struct{ draw.GlyphStyle }

// Thumbnail implements plot.Thumbnailer.
func (g glyphThumb) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(g.GlyphStyle, c.Center())
}

// addOffered draws goodput = offered rate from lo to hi as a thin grey
// dashed segment and returns it (nil when there is no segment).
func addOffered(p *plot.Plot, lo, hi float64) *plotter.Line {
	if !(hi > lo) {
		return nil
	}
	// Points spaced geometrically keep the line straight on a log axis.
	const n = 64
	pts := make(plotter.XYs, n+1)
	for i := range pts {
		x := lo * math.Pow(hi/lo, float64(i)/n)
		pts[i] = plotter.XY{X: x, Y: x}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil
	}
	l.Color, l.Width = color.Gray{Y: 0xa0}, vg.Points(0.8)
	l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(l)
	return l
}

// bottomMax is the largest goodput of any run (at least 1 req/s).
func bottomMax(s *Sweep) float64 {
	m := 1.0
	for _, p := range s.Policies {
		for _, st := range p.Steps {
			if st.Summary != nil && !math.IsNaN(st.Summary.SLA.Goodput) {
				m = math.Max(m, st.Summary.SLA.Goodput)
			}
		}
	}
	return m
}
