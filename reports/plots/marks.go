package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// runMarks are a curve's runs, those that passed and those that failed.
type runMarks struct{ pass, fail plotter.XYs }

// add files the run at xy by whether it passed.
func (m *runMarks) add(xy plotter.XY, passed bool) {
	if passed {
		m.pass = append(m.pass, xy)
	} else {
		m.fail = append(m.fail, xy)
	}
}

// draw adds the runs to p in colour i: dots for those that passed,
// crosses for those that failed.
func (m *runMarks) draw(p *plot.Plot, i int) {
	addMarks(p, m.pass, i, false)
	addMarks(p, m.fail, i, true)
}

// addRunKey adds the legend entries of the run marks.
func addRunKey(leg *legend) {
	leg.add("run passed", markGlyph(color.Black, false))
	leg.add("run failed", markGlyph(color.Black, true))
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
