package plots

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tracebench/tracebench/metrics"
)

// hitRatePlot draws grouped bars of the server hit rate per backend, one
// bar per run, with the Router's predicted hit rate as dots.
func hitRatePlot(runs []*metrics.Summary) figure {
	nb := 0
	for _, s := range runs {
		nb = max(nb, len(s.Backends))
	}
	if nb == 0 {
		return figure{}
	}
	p := newPlot("Prefix-cache hit rate per backend", "backend", "hit rate (%)")
	leg := newLegend()
	// about 300 pt of plot width: groups fill 75 % of each backend's slot
	width := vg.Points(math.Max(1.5, math.Min(24, 0.75*300/float64(nb*len(runs)))))
	var predicted plot.Thumbnailer
	for i, s := range runs {
		offset := width * vg.Length(float64(i)-float64(len(runs)-1)/2)
		bars, sc := hitRateBars(s, nb, i, width, offset)
		if bars == nil {
			continue
		}
		p.Add(bars)
		leg.add(legendName(s.Name()), bars)
		if sc != nil {
			p.Add(offsetScatter{sc, offset})
			predicted = sc
		}
	}
	if predicted != nil {
		leg.add("predicted by the Router", predicted)
	}
	names := make([]string, nb)
	for i := range names {
		names[i] = "b" + strconv.Itoa(i)
	}
	p.NominalX(names...)
	// A fixed 0–100 % axis compares across reports at a glance.
	p.Y.Min, p.Y.Max = 0, 100
	return figure{grid: [][]*plot.Plot{{p}}, legend: leg}
}

// hitRateBars returns run s's bars (colour i) and its predicted hit rates
// as black dots (nil when the Router predicts none).
func hitRateBars(s *metrics.Summary, nb, i int, width, offset vg.Length) (*plotter.BarChart, *plotter.Scatter) {
	vals := make(plotter.Values, nb)
	var pred plotter.XYs
	for _, b := range s.Backends {
		vals[b.Index] = 100 * zeroNaN(b.HitRate)
		if !math.IsNaN(b.PredictedHitRate) {
			pred = append(pred, plotter.XY{X: float64(b.Index), Y: 100 * b.PredictedHitRate})
		}
	}
	bars, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return nil, nil
	}
	bars.Color = lineColor(i)
	bars.LineStyle.Width = 0
	bars.Offset = offset
	return bars, predictedDots(pred)
}

// predictedDots returns predicted hit rates as black dots; nil when
// there are none.
func predictedDots(pts plotter.XYs) *plotter.Scatter {
	if len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	return sc
}

// offsetScatter draws a scatter shifted right by a fixed length, so a
// dot sits over its bar in a grouped bar chart.
type offsetScatter struct {
	*plotter.Scatter
	offset vg.Length
}

// Plot implements plot.Plotter.
func (o offsetScatter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, xy := range o.XYs {
		// Not DrawGlyph: it drops points outside the data area, and the
		// outer bars of a group stand outside it.
		c.DrawGlyphNoClip(o.GlyphStyle, vg.Point{X: trX(xy.X) + o.offset, Y: trY(xy.Y)})
	}
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
