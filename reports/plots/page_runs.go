package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/metrics"
)

// hitBarWidth is the thickness of one bar of the hit-rate plot.
var hitBarWidth = vg.Points(8)

// hitPlotHeight fits n policies of two bars each (at least
// minFigureHeight).
func hitPlotHeight(n int) vg.Length {
	return max(minFigureHeight, vg.Inch*1.3+vg.Length(n)*vg.Inch*0.32)
}

// hitPolicyPlot draws, per run, its server hit rate and its predicted hit
// rate as two horizontal bars on a 0–100 % axis, first run on top. A
// figure that could not be measured gets no bar and "n/a" in the label.
func hitPolicyPlot(runs []*metrics.Summary) figure {
	p := newPlot("Prefix-cache hit rate per policy", "hit rate (%)", "")
	leg := newLegend()
	n := len(runs)
	labels := make([]string, n)
	drawn := [2]bool{}
	for i, s := range runs {
		pos := float64(n - 1 - i)
		label := legendName(s.Name())
		for k, v := range []float64{s.HitRate.Server, s.HitRate.Predicted} {
			if math.IsNaN(v) {
				label += [2]string{" (server n/a)", " (predicted n/a)"}[k]
				continue
			}
			b, err := plotter.NewBarChart(plotter.Values{100 * v}, hitBarWidth)
			if err != nil {
				continue
			}
			b.Horizontal, b.XMin = true, pos
			b.Color, b.LineStyle.Width = lineColor(k), 0
			b.Offset = hitBarWidth * vg.Length(0.5-float64(k)) // server above predicted
			p.Add(b)
			if !drawn[k] {
				drawn[k] = true
				leg.add([2]string{"server (usage)", "predicted by the Router"}[k], b)
			}
		}
		labels[n-1-i] = label
	}
	if leg.n == 0 {
		return figure{}
	}
	p.NominalY(labels...)
	p.X.Min, p.X.Max = 0, 100
	return figure{grid: [][]*plot.Plot{{p}}, legend: leg}
}

// timelinePlot stacks the mean TTFT by arrival time above the requests
// in flight, one line per run in the same colours.
func timelinePlot(runs []*metrics.Summary) figure {
	top := newPlot("Mean TTFT by arrival time", "time since start (s)", "TTFT (ms)")
	bottom := newPlot("Requests in flight", "time since start (s)", "requests")
	ttft := func(s *metrics.Summary) []metrics.Point { return coarsen(s.Series.TTFTOverTime, maxPlotPoints, false) }
	return stackOverLoad(runs, top, bottom, ttft, false)
}
