package plots

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/tracebench/tracebench/metrics"
)

// Ref is one drawn plot of the markdown report: its file relative to
// the report, and what the reader should look for.
type Ref struct {
	Title, File, Caption string
}

// plotSpec builds one plot file; draw returns a figure without panels
// when the runs have nothing to show for it.
type plotSpec struct {
	name, title, caption string
	w, h                 vg.Length
	draw                 func(runs []*metrics.Summary) figure
}

// WriteRuns draws every plot of the markdown report that has data into
// dir (created if needed), as SVG and, when png is set, as PNG too, and
// returns the references for the report: to the PNG files when png is
// set, else to the SVG files.
func WriteRuns(dir string, runs []*metrics.Summary, png bool) ([]Ref, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots dir: %w", err)
	}
	var refs []Ref
	for _, sp := range plotSpecs(runs) {
		fig := sp.draw(runs)
		if len(fig.grid) == 0 {
			continue
		}
		ext := ".svg"
		if png {
			ext = ".png"
		}
		// Draw the SVG always; the PNG too when asked, and embed it.
		for _, e := range uniq(".svg", ext) {
			if err := saveFigure(filepath.Join(dir, sp.name+e), sp.w, sp.h, fig); err != nil {
				return nil, err
			}
		}
		refs = append(refs, Ref{Title: sp.title, File: "plots/" + sp.name + ext, Caption: sp.caption})
	}
	return refs, nil
}

// uniq is a and b, or a alone when they are equal.
func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// plotSpecs lists the plots in report order.
func plotSpecs(runs []*metrics.Summary) []plotSpec {
	n := len(runs)
	rows := (n + 2) / 3
	specs := []plotSpec{
		{"ttft_cdf", "TTFT distribution",
			"Fraction of successful requests (y) whose TTFT was at most x. A curve further left is faster; " +
				"where a curve crosses the dashed line is its p99, and the right end is its slowest request.",
			vg.Inch * 7, vg.Inch * 4.2, ttftCDFPlot},
		{"throughput", "Throughput and requests in flight over time",
			"Top: output tokens per second, each request's tokens spread evenly from its first token to its last. " +
				"Bottom: mean number of requests sent and not yet finished " +
				"(solid) and arrived but not yet sent (dashed, client-side queue). A policy that keeps throughput up " +
				"with fewer requests waiting is serving the load better.",
			vg.Inch * 7, vg.Inch * 6, throughputPlot},
		{"user_service", "Cumulative service per user",
			"Weighted tokens (w_in·input + w_out·output) delivered to each of the largest users by demand, " +
				"accumulated over time, one panel per run. Parallel lines that keep their order mean each user " +
				"got a steady share; a line that flattens while others climb is a user being starved.",
			vg.Inch * 7, panelsHeight(rows, 2.8), userServicePlot},
		{"vtc_counter", "VTC counters per user",
			"The vtc (or lcf) queue's counter of each of the largest users: the weighted tokens it has charged them. " +
				"VTC admits the backlogged user with the smallest counter, so counters that climb together mean " +
				"users are being served in equal shares.",
			vg.Inch * 7, panelsHeight(vtcRuns(runs), 2.8), vtcCounterPlot},
		{"hit_rate", "Prefix-cache hit rate per backend",
			"Bars: the servers' hit rate (cached / prompt tokens from usage) on each backend, one bar per run; " +
				"b0 is backend # 0 of the run's table under Backends, and so on. " +
				"Black dots: the hit rate the Router predicted for its picks on that backend, when it predicts one. " +
				"Dots far above their bars mean the Router's model of the caches is optimistic.",
			vg.Inch * 7, vg.Inch * 4, hitRatePlot},
		{"bin_target", "Multi-bin target batch size per bin",
			"The multi-bin queue's b_target (the batch size it aims for: the smaller of the memory and SLA bounds) " +
				"per bin over time, one panel per multi-bin run. A bin whose b_target drops is hitting its TBT SLA.",
			vg.Inch * 7, panelsHeight(binRuns(runs), 3), binTargetPlot},
	}
	return specs
}

// minFigureHeight keeps a one-row figure tall enough for its rotated y
// axis label.
const minFigureHeight = vg.Inch * 3.4

// panelsHeight is the height of a figure of rows rows of panels, each
// perRow inches tall, and at least minFigureHeight.
func panelsHeight(rows int, perRow float64) vg.Length {
	return max(minFigureHeight, vg.Length(float64(max(rows, 1))*perRow)*vg.Inch)
}

// vtcRuns is the number of rows of panels the VTC counter plot needs.
func vtcRuns(runs []*metrics.Summary) int {
	n := 0
	for _, s := range runs {
		if len(s.Series.VTCCounter) > 0 {
			n++
		}
	}
	return (n + 2) / 3
}

// legendName shortens a run name for a legend.
func legendName(s string) string {
	if len(s) > 28 {
		return s[:27] + "…"
	}
	return s
}
