package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// newLine returns a line of pts in colour i (dashed when asked), or nil
// when pts is empty or not finite.
func newLine(pts plotter.XYs, i int, dashed bool) *plotter.Line {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil
	}
	l.Color = lineColor(i)
	l.Width = vg.Points(1.5)
	l.Dashes = lineDash(i)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return l
}

func xys(pts []metrics.Point) plotter.XYs {
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
func ttftCDFPlot(runs []*metrics.Summary) figure {
	return cdfPlot(runs, "TTFT distribution (successful requests)", "TTFT (ms)", "fraction of requests with TTFT ≤ x",
		func(s *metrics.Summary) []metrics.CDFPoint { return s.Series.TTFTCDF })
}

// cdfPlot draws the CDF get returns for each run, on a log x axis when
// the values span more than a factor of 20, with the p99 level marked.
func cdfPlot(runs []*metrics.Summary, title, x, y string, get func(*metrics.Summary) []metrics.CDFPoint) figure {
	p := newPlot(title, x, y)
	leg := newLegend()
	lo, hi := math.Inf(1), 0.0
	for i, s := range runs {
		var pts plotter.XYs
		for _, c := range get(s) {
			v := math.Max(c.Value, 0.001)
			pts = append(pts, plotter.XY{X: v, Y: c.Fraction})
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if l := newLine(pts, i, false); l != nil {
			p.Add(l)
			leg.add(legendName(s.Name()), l)
		}
	}
	if leg.n == 0 {
		return figure{}
	}
	if hi/lo > 20 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"},
		{Value: 0.5, Label: "0.5"}, {Value: 0.75, Label: "0.75"}, {Value: 0.9, Label: "0.9"}, {Value: 1, Label: "1"}}
	p99 := addHLine(p, 0.99)
	leg.add("p99 (0.99)", p99)
	return figure{grid: [][]*plot.Plot{{p}}, legend: leg}
}

// addHLine adds a thin dashed grey horizontal line at y.
func addHLine(p *plot.Plot, y float64) *plotter.Function {
	f := plotter.NewFunction(func(float64) float64 { return y })
	f.Color = color.Gray{Y: 0x80}
	f.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	f.Width = vg.Points(0.8)
	p.Add(f)
	return f
}

// throughputPlot stacks output tok/s over time above requests in flight.
func throughputPlot(runs []*metrics.Summary) figure {
	top := newPlot("Output throughput", "time since start (s)", "output tokens / s")
	bottom := newPlot("Requests in flight (solid) and waiting in the client (dashed)", "time since start (s)", "requests")
	return stackOverLoad(runs, top, bottom, func(s *metrics.Summary) []metrics.Point { return smooth(s.Series.Throughput) }, true)
}

// stackOverLoad plots series of every run on top, above the requests in
// flight of the same runs (and those waiting in the client, dashed, when
// waiting is set), one colour per run; runs whose series is empty are
// left out, and no run at all gives an empty figure.
func stackOverLoad(runs []*metrics.Summary, top, bottom *plot.Plot, series func(*metrics.Summary) []metrics.Point, waiting bool) figure {
	leg := newLegend()
	for i, s := range runs {
		l := newLine(xys(series(s)), i, false)
		if l == nil {
			continue
		}
		top.Add(l)
		leg.add(legendName(s.Name()), l)
		if f := newLine(xys(smooth(s.Series.InFlight)), i, false); f != nil {
			bottom.Add(f)
		}
		if !waiting {
			continue
		}
		if w := newLine(xys(smooth(s.Series.Waiting)), i, true); w != nil {
			bottom.Add(w)
		}
	}
	if leg.n == 0 {
		return figure{}
	}
	top.Y.Min, bottom.Y.Min = 0, 0
	top.X.Min, bottom.X.Min = 0, 0
	return figure{grid: [][]*plot.Plot{{top}, {bottom}}, legend: leg}
}

// smooth coarsens a rate series to at most maxPlotPoints points, each
// at least a second wide when the run is long enough for 25 such points,
// so a line shows the trend rather than bursts. Points move to their
// bucket's middle.
func smooth(pts []metrics.Point) []metrics.Point {
	if len(pts) < 2 {
		return pts
	}
	width := pts[1].At - pts[0].At
	span := width * float64(len(pts))
	want := math.Max(width, math.Min(1, span/25))
	n := min(maxPlotPoints, int(math.Ceil(span/want)))
	out := coarsen(pts, n, false)
	if len(out) > 1 {
		half := (out[1].At - out[0].At) / 2
		for i := range out {
			out[i].At += half
		}
	}
	return out
}

// userServicePlot draws one panel per run with the cumulative service of
// its largest users, on shared axes and colours.
func userServicePlot(runs []*metrics.Summary) figure {
	return perUserPanels(runs, "weighted tokens", func(s *metrics.Summary) map[string][]metrics.Point {
		return s.Series.UserService
	}, true)
}

// vtcCounterPlot draws one panel per vtc or lcf run with its Queue's
// counter for the largest users.
func vtcCounterPlot(runs []*metrics.Summary) figure {
	return perUserPanels(runs, "counter (tokens)", func(s *metrics.Summary) map[string][]metrics.Point {
		return s.Series.VTCCounter
	}, false)
}

// perUserPanels draws, for every run with data, a panel of one line per
// user (same colour for a user in every panel).
func perUserPanels(runs []*metrics.Summary, ylabel string, get func(*metrics.Summary) map[string][]metrics.Point, cumulative bool) figure {
	colors := map[string]int{}
	leg := newLegend()
	var panels []*plot.Plot
	for _, s := range runs {
		series := get(s)
		if len(series) == 0 {
			continue
		}
		p := newPlot(legendName(s.Name()), "time (s)", ylabel)
		p.Title.TextStyle.Font.Size = vg.Points(11)
		for _, u := range s.Users {
			pts, ok := series[u.User]
			if !ok {
				continue
			}
			c, seen := colors[u.User]
			if !seen {
				c = len(colors)
				colors[u.User] = c
			}
			if l := newLine(xys(coarsen(pts, maxPlotPoints, cumulative)), c, false); l != nil {
				p.Add(l)
				if !seen {
					leg.add(userLabel(u.User), l)
				}
			}
		}
		panels = append(panels, p)
	}
	sameAxes(panels)
	return figure{grid: gridOf(panels, 3), legend: leg}
}

// sameAxes gives every panel the widest x and y ranges among them, so
// panels compare at a glance.
func sameAxes(panels []*plot.Plot) {
	var xmax, ymax float64
	for _, p := range panels {
		xmax, ymax = math.Max(xmax, p.X.Max), math.Max(ymax, p.Y.Max)
	}
	for _, p := range panels {
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, xmax, 0, ymax
	}
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

func binRuns(runs []*metrics.Summary) int {
	n := 0
	for _, s := range runs {
		if len(s.Series.BinTarget) > 0 {
			n++
		}
	}
	return n
}

// binTargetPlot draws b_target per bin over time, one panel per
// multi-bin run, bins in the same colours in every panel.
func binTargetPlot(runs []*metrics.Summary) figure {
	leg := newLegend()
	named := map[string]bool{}
	var grid [][]*plot.Plot
	for _, s := range runs {
		if len(s.Series.BinTarget) == 0 {
			continue
		}
		p := newPlot("b_target per bin: "+legendName(s.Name()), "time since start (s)", "b_target (requests)")
		for i, bin := range textfmt.NaturalKeys(s.Series.BinTarget) {
			if l := newLine(xys(coarsen(s.Series.BinTarget[bin], maxPlotPoints, false)), i, false); l != nil {
				p.Add(l)
				if !named[bin] {
					named[bin] = true
					leg.add(bin, l)
				}
			}
		}
		p.Y.Min = 0
		headroom(p, 0.1)
		grid = append(grid, []*plot.Plot{p})
	}
	return figure{grid: grid, legend: leg}
}

// userLabel names a user in a legend, as the report's tables do: "(no
// user)" for requests without one.
func userLabel(u string) string {
	if u == "" {
		return "(no user)"
	}
	return u
}
