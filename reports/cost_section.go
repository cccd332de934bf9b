package reports

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
)

// DefaultCostAttainment is the SLA attainment a policy must keep to be
// ranked by cost (0.9, as sweep's --attainment).
const DefaultCostAttainment = 0.9

// showCost reports whether any run was priced.
func showCost(runs []*metrics.Summary) bool {
	return slices.ContainsFunc(runs, func(s *metrics.Summary) bool { return s.Options.Price.Priced() })
}

// costHead is the cost table's header.
var costHead = []string{"run", "fleet $/hour", "$ / M output tokens", "$ / M input tokens",
	"$ / request that met the SLO", "SLA attainment"}

// costCells is a run's row of the cost table.
func costCells(s *metrics.Summary) []html.Cell {
	c := s.Cost
	return []html.Cell{html.TextCell(s.Name()),
		html.NumCell(fmtDollars(c.FleetPerHour), c.FleetPerHour),
		html.NumCell(fmtDollars(c.PerMOutputTokens), c.PerMOutputTokens),
		html.NumCell(fmtDollars(c.PerMInputTokens), c.PerMInputTokens),
		html.NumCell(fmtDollars(c.PerMetRequest), c.PerMetRequest),
		html.NumCell(textfmt.Pct(s.SLA.Attainment), s.SLA.Attainment)}
}

// costText introduces the cost table.
const costText = "What the work cost: every backend's price in $/hour times the measured window, divided by the " +
	"tokens of successful requests (input and output counted apart) or by the requests that met their SLO."

// costNotes say where the price came from, why a cost is n/a, and which
// policy is cheapest under the SLO.
func costNotes(runs []*metrics.Summary) []string {
	var out []string
	for _, s := range runs {
		if s.Cost.Note != "" {
			out = append(out, fmt.Sprintf("Cost of %s is n/a: %s.", s.Name(), s.Cost.Note))
		}
	}
	if src := runs[0].Cost.Source; src != "" {
		out = append(out, "Price from "+src+".")
	}
	return append(out, CheapestUnderSLO(runs, DefaultCostAttainment).Text())
}

// writeCost writes the cost table when any run was priced.
func writeCost(w io.Writer, runs []*metrics.Summary) {
	if !showCost(runs) {
		return
	}
	fmt.Fprintf(w, "### Cost\n\n%s\n\n", costText)
	mdTable(w, costHead, "l", cellRows(runs, costCells))
	fmt.Fprintf(w, "%s\n\n", strings.Join(costNotes(runs), " "))
}

// costSection is the HTML report's cost table (ok false when no run was
// priced).
func costSection(runs []*metrics.Summary) (html.Section, bool) {
	if !showCost(runs) {
		return html.Section{}, false
	}
	t := cellsTable(runs, costHead, costNotes(runs), costCells)
	return html.Section{ID: "cost", Title: "Cost", Text: costText, Table: t}, true
}

// fmtDollars is an amount in dollars to four significant digits, so
// policies a fraction of a percent apart read apart ("n/a" when unknown).
func fmtDollars(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return textfmt.NA
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
