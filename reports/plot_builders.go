package reports

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// addLine adds a line of pts to p in colour i, with a legend entry.
func addLine(p *plot.Plot, name string, i int, pts plotter.XYs, dashed bool) {
	if len(pts) == 0 {
		return
	}
	l, err := plotter.NewLine(pts)
	if err != nil { // only NaN or Inf values; leave the line out
		return
	}
	l.Color = lineColor(i)
	l.Width = vg.Points(1.5)
	l.Dashes = lineDash(i)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
}

func xys(pts []Point) plotter.XYs {
	out := make(plotter.XYs, 0, len(pts))
	for _, p := range pts {
		if !math.IsNaN(p.Value) && !math.IsInf(p.Value, 0) {
			out = append(out, plotter.XY{X: p.At, Y: p.Value})
		}
	}
	return out
}

// ttftCDFPlot draws one TTFT CDF per run, on a log x axis when TTFT spans
// more than a factor of 20.
func ttftCDFPlot(runs []*Summary) [][]*plot.Plot {
	p := newPlot("TTFT distribution (successful requests)", "TTFT (ms)", "fraction of requests with TTFT ≤ x")
	lo, hi := math.Inf(1), 0.0
	any := false
	for i, s := range runs {
		var pts plotter.XYs
		for _, c := range s.Series.TTFTCDF {
			pts = append(pts, plotter.XY{X: math.Max(c.Value, 0.001), Y: c.Fraction})
			lo, hi = math.Min(lo, math.Max(c.Value, 0.001)), math.Max(hi, c.Value)
		}
		any = any || len(pts) > 0
		addLine(p, legendName(s.Name()), i, pts, false)
	}
	if !any {
		return nil
	}
	if hi/lo > 20 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Points(8), vg.Points(12)
	addHLine(p, 0.99)
	p.Add(plotter.NewGrid())
	return [][]*plot.Plot{{p}}
}

// addHLine adds a thin dashed horizontal reference line at y.
func addHLine(p *plot.Plot, y float64) {
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Color = lineColor(9)
	f.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	f.Width = vg.Points(0.8)
	p.Add(f)
}

// throughputPlot stacks output tok/s over time above requests in flight.
func throughputPlot(runs []*Summary) [][]*plot.Plot {
	top := newPlot("Output throughput", "time since start (s)", "output tokens / s")
	bottom := newPlot("Requests in flight (solid) and waiting in the client (dashed)", "time since start (s)", "requests")
	any := false
	for i, s := range runs {
		any = any || len(s.Series.Throughput) > 0
		addLine(top, legendName(s.Name()), i, xys(coarsen(s.Series.Throughput, maxPlotPoints, false)), false)
		addLine(bottom, "", i, xys(coarsen(s.Series.InFlight, maxPlotPoints, false)), false)
		addLine(bottom, "", i, xys(coarsen(s.Series.Waiting, maxPlotPoints, false)), true)
	}
	if !any {
		return nil
	}
	for _, p := range []*plot.Plot{top, bottom} {
		p.Y.Min = 0
		p.Y.Tick.Marker = siTicks{}
		p.Add(plotter.NewGrid())
	}
	headroom(top, 0.1*float64(len(runs)+1))
	return [][]*plot.Plot{{top}, {bottom}}
}

// userServicePlot draws one small panel per run with the cumulative
// service of its largest users.
func userServicePlot(runs []*Summary) [][]*plot.Plot {
	var panels []*plot.Plot
	for _, s := range runs {
		if len(s.Series.UserService) == 0 {
			continue
		}
		p := newPlot(legendName(s.Name()), "time (s)", "service (weighted tokens)")
		p.Title.TextStyle.Font.Size = vg.Points(11)
		for i, u := range s.Users {
			if pts, ok := s.Series.UserService[u.User]; ok {
				addLine(p, legendIf(len(panels) == 0, userLabel(u.User)), i, xys(coarsen(pts, maxPlotPoints, true)), false)
			}
		}
		p.Y.Min = 0
		p.Y.Tick.Marker = siTicks{}
		if len(panels) == 0 {
			headroom(p, 0.09*float64(len(s.Series.UserService)+1))
		}
		p.Add(plotter.NewGrid())
		panels = append(panels, p)
	}
	return gridOf(panels, 3)
}

func legendIf(ok bool, name string) string {
	if ok {
		return name
	}
	return ""
}

// gridOf lays panels out cols to a row.
func gridOf(panels []*plot.Plot, cols int) [][]*plot.Plot {
	var grid [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(i+cols, len(panels))])
		grid = append(grid, row)
	}
	if len(panels) > 0 && len(panels) < cols {
		grid[0] = grid[0][:len(panels)]
	}
	return grid
}

func binRuns(runs []*Summary) int {
	n := 0
	for _, s := range runs {
		if len(s.Series.BinTarget) > 0 {
			n++
		}
	}
	return n
}

// binTargetPlot draws b_target per bin over time, one panel per
// multi-bin run.
func binTargetPlot(runs []*Summary) [][]*plot.Plot {
	var grid [][]*plot.Plot
	for _, s := range runs {
		if len(s.Series.BinTarget) == 0 {
			continue
		}
		p := newPlot("b_target per bin: "+legendName(s.Name()), "time since start (s)", "b_target (requests per batch)")
		for i, bin := range sortedKeys(s.Series.BinTarget) {
			addLine(p, bin, i, xys(coarsen(s.Series.BinTarget[bin], maxPlotPoints, false)), false)
		}
		p.Y.Min = 0
		headroom(p, 0.12*float64(len(s.Series.BinTarget)+1))
		p.Add(plotter.NewGrid())
		grid = append(grid, []*plot.Plot{p})
	}
	return grid
}

// hitRatePlot draws grouped bars of the server hit rate per backend, one
// bar per run, with the predicted hit rate as dots.
func hitRatePlot(runs []*Summary) [][]*plot.Plot {
	nb := 0
	for _, s := range runs {
		nb = max(nb, len(s.Backends))
	}
	if nb == 0 {
		return nil
	}
	p := newPlot("Prefix-cache hit rate per backend", "backend", "hit rate (%)")
	width := vg.Points(math.Max(2, math.Min(24, 420/float64(nb*len(runs)))))
	predLegend := false
	for i, s := range runs {
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
			continue
		}
		bars.Color = lineColor(i)
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(i)-float64(len(runs)-1)/2)
		p.Add(bars)
		p.Legend.Add(legendName(s.Name()), bars)
		if addPredicted(p, pred, bars.Offset, !predLegend) {
			predLegend = true
		}
	}
	names := make([]string, nb)
	for i := range names {
		names[i] = "b" + itoa(i)
	}
	p.NominalX(names...)
	p.Y.Min = 0
	headroom(p, 0.1*float64(len(runs)+2))
	p.Y.Max = math.Min(p.Y.Max, 100)
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	return [][]*plot.Plot{{p}}
}

// addPredicted draws predicted hit rates as black dots over their bars
// and reports whether it drew any.
func addPredicted(p *plot.Plot, pts plotter.XYs, offset vg.Length, legend bool) bool {
	if len(pts) == 0 {
		return false
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return false
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(offsetScatter{sc, offset})
	if legend {
		p.Legend.Add("predicted by the Router", sc)
	}
	return true
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
		c.DrawGlyph(o.GlyphStyle, vg.Point{X: trX(xy.X) + o.offset, Y: trY(xy.Y)})
	}
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func itoa(i int) string { return strconv.Itoa(i) }
