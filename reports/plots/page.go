package plots

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/metrics"
)

// PagePlot is one plot of the HTML report, drawn as SVG.
type PagePlot struct {
	// ID names the plot (letters, digits, '-'); Title and Caption head
	// and explain it.
	ID, Title, Caption string
	// SVG is the drawn document, XML declaration included.
	SVG []byte
}

// PageData is what the HTML report's plots are drawn from; every part
// is optional.
type PageData struct {
	// Runs are the runs whose distributions and time series are
	// plotted.
	Runs []*metrics.Summary
	// Capacity is the data of the capacity curve (nil: no curve).
	Capacity *CapacityData
	// Pareto is a sweep's throughput per user against per replica (nil:
	// no plot).
	Pareto *ParetoData
}

// pagePlotSpec builds one plot of the page from its data; draw returns a
// figure without panels when there is nothing to show.
type pagePlotSpec struct {
	id, title, caption string
	w, h               vg.Length
	draw               func(PageData) figure
}

// pagePlotSpecs lists the page's plots in order.
func pagePlotSpecs(r PageData) []pagePlotSpec {
	runs := func(f func([]*metrics.Summary) figure) func(PageData) figure {
		return func(r PageData) figure { return f(r.Runs) }
	}
	specs := []pagePlotSpec{
		{"ttft-cdf", "TTFT distribution",
			"Fraction of successful requests (y) whose TTFT was at most x, one curve per policy. A curve further left is " +
				"faster; where it crosses the dashed line is its p99, and its right end is its slowest request.",
			vg.Inch * 7, vg.Inch * 4.2, runs(ttftCDFPlot)},
		{"tbt-cdf", "TBT distribution",
			"Fraction of gaps between successive content chunks (y) at most x, over every gap of every successful " +
				"request, one curve per policy. A curve further left streams faster; the p99 is where it crosses the dashed line.",
			vg.Inch * 7, vg.Inch * 4.2, runs(tbtCDFPlot)},
		{"hit", "Prefix-cache hit rate: server against predicted",
			"Per policy, the hit rate the servers reported (cached / prompt tokens from usage) and the one the Router " +
				"predicted for its picks. A predicted bar well beyond its server bar means the Router's model of the caches " +
				"is optimistic; a policy whose figure is n/a says so in its label and has no bar.",
			vg.Inch * 7, hitPlotHeight(len(r.Runs)), runs(hitPolicyPlot)},
		{"capacity", "Capacity curve", CapacityCaption(r.Capacity), capacityPlotW, capacityPlotH,
			func(r PageData) figure { return capacityPlot(r.Capacity) }},
		{"pareto", "Throughput per user against throughput per replica", ParetoCaption, paretoPlotW, paretoPlotH,
			func(r PageData) figure { return paretoPlot(r.Pareto) }},
		{"timeline", "TTFT and requests in flight over the run",
			"Top: mean TTFT of the successful requests by the time they were due to arrive. Bottom: mean number of " +
				"requests sent and not yet finished. A policy whose TTFT climbs while its requests pile up is falling " +
				"behind the load.",
			vg.Inch * 7, vg.Inch * 6, runs(timelinePlot)},
	}
	return specs
}

// Page draws every plot of the HTML report that has data, in page order.
func Page(r PageData) ([]PagePlot, error) {
	var out []PagePlot
	for _, sp := range pagePlotSpecs(r) {
		fig := sp.draw(r)
		if len(fig.grid) == 0 {
			continue
		}
		b, err := renderFigure("svg", sp.w, sp.h, fig)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", sp.id, err)
		}
		out = append(out, PagePlot{ID: sp.id, Title: sp.title, Caption: sp.caption, SVG: b})
	}
	return out, nil
}

// tbtCDFPlot draws one TBT CDF per run.
func tbtCDFPlot(runs []*metrics.Summary) figure {
	return cdfPlot(runs, "TBT distribution (every gap of successful requests)", "TBT (ms)",
		"fraction of gaps with TBT ≤ x", func(s *metrics.Summary) []metrics.CDFPoint { return s.Series.TBTCDF })
}
