package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"

	"github.com/tracebench/tracebench/metrics"
)

// maxPlotPoints is the most points a time-series line is drawn with;
// finer series are averaged down so a line shows the trend, not noise.
const maxPlotPoints = 80

// coarsen averages runs of consecutive points so at most maxPts remain
// (each point keeps its group's first At). last keeps each group's last
// value instead of the mean (for cumulative series).
func coarsen(pts []metrics.Point, maxPts int, last bool) []metrics.Point {
	if len(pts) <= maxPts {
		return pts
	}
	k := (len(pts) + maxPts - 1) / maxPts
	out := make([]metrics.Point, 0, maxPts)
	for i := 0; i < len(pts); i += k {
		g := pts[i:min(i+k, len(pts))]
		v := g[len(g)-1].Value
		if !last {
			v = 0
			for _, p := range g {
				v += p.Value
			}
			v /= float64(len(g))
		}
		out = append(out, metrics.Point{At: g[0].At, Value: v})
	}
	return out
}

// headroom raises the top of the y axis by frac of its span so a legend
// at the top does not cover the data.
func headroom(p *plot.Plot, frac float64) {
	if p.Y.Max > p.Y.Min {
		p.Y.Max += (p.Y.Max - p.Y.Min) * frac
	}
}

// siTicks label a linear axis at about labelTicks round values (steps
// of 1, 2, 2.5 or 5 times a power of ten) with SI suffixes (1.5k, 2M)
// instead of long decimals, with an unlabelled minor tick between each
// pair.
type siTicks struct{}

// labelTicks is how many labelled ticks a linear axis aims for; gonum's
// default of 3 leaves short panels with only "0" and one other label.
const labelTicks = 6

// Ticks implements plot.Ticker.
func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / labelTicks)
	minor := step / 2
	var out []plot.Tick
	for k := math.Ceil(lo / minor); k*minor <= hi*(1+1e-12); k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if math.Mod(k, 2) == 0 {
			t.Label = fmtSI(v)
		}
		out = append(out, t)
	}
	return out
}

// niceStep returns the smallest of 1, 2, 2.5, 5 and 10 times a power of
// ten that is at least raw.
func niceStep(raw float64) float64 {
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

// fmtSI formats v with at most three significant digits and a k, M or G
// suffix.
func fmtSI(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		f float64
		s string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 3, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// logTicks label a log axis at 1, 2 and 5 times each power of ten (only
// at powers of ten when the axis spans more than three of them), with
// unlabelled minor ticks at the other integers.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	wide := hi > 1000*lo
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = fmtSI(v)
			}
			out = append(out, t)
		}
	}
	return out
}
