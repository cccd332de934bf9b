package reports

import (
	"bytes"
	"fmt"
	"html/template"

	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/metrics"
)

// htmlPlot is one plot of the page, drawn as inline SVG.
type htmlPlot struct {
	ID, Title, Caption string
	SVG                template.HTML
}

// htmlPlotSpec builds one plot of the page from the report's data; draw
// returns a figure without panels when there is nothing to show.
type htmlPlotSpec struct {
	id, title, caption string
	w, h               vg.Length
	draw               func(*HTMLReport) figure
}

// htmlPlotSpecs lists the page's plots in order.
func htmlPlotSpecs(r *HTMLReport) []htmlPlotSpec {
	runs := func(f func([]*metrics.Summary) figure) func(*HTMLReport) figure {
		return func(r *HTMLReport) figure { return f(r.Runs) }
	}
	specs := []htmlPlotSpec{
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
		{"capacity", "Capacity curve", capacityCaption(r.Capacity), vg.Inch * 7, vg.Inch * 6,
			func(r *HTMLReport) figure { return capacityPlot(r.Capacity) }},
		{"pareto", "Throughput per user against throughput per replica", paretoCaption, paretoPlotW, paretoPlotH,
			func(r *HTMLReport) figure { return paretoPlot(r.Pareto) }},
		{"timeline", "TTFT and requests in flight over the run",
			"Top: mean TTFT of the successful requests by the time they were due to arrive. Bottom: mean number of " +
				"requests sent and not yet finished. A policy whose TTFT climbs while its requests pile up is falling " +
				"behind the load.",
			vg.Inch * 7, vg.Inch * 6, runs(timelinePlot)},
	}
	return specs
}

// htmlPlots draws every plot that has data as inline SVG.
func htmlPlots(r *HTMLReport) ([]htmlPlot, error) {
	var out []htmlPlot
	for _, sp := range htmlPlotSpecs(r) {
		fig := sp.draw(r)
		if len(fig.grid) == 0 {
			continue
		}
		b, err := renderFigure("svg", sp.w, sp.h, fig)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", sp.id, err)
		}
		out = append(out, htmlPlot{ID: sp.id, Title: sp.title, Caption: sp.caption, SVG: inlineSVG(b)})
	}
	return out, nil
}

// inlineSVG drops what precedes the <svg> element (the XML declaration
// and comments), which an HTML document must not carry inline.
func inlineSVG(b []byte) template.HTML {
	if i := bytes.Index(b, []byte("<svg")); i > 0 {
		b = b[i:]
	}
	// gonum drew it; its SVG writer escapes every label.
	return template.HTML(b)
}

// tbtCDFPlot draws one TBT CDF per run.
func tbtCDFPlot(runs []*metrics.Summary) figure {
	return cdfPlot(runs, "TBT distribution (every gap of successful requests)", "TBT (ms)",
		"fraction of gaps with TBT ≤ x", func(s *metrics.Summary) []metrics.CDFPoint { return s.Series.TBTCDF })
}
