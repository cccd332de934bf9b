package reports

import (
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/reports/html"
)

// cellRows is a Markdown table's rows of the texts of each run's cells,
// the first (the run's name) escaped.
func cellRows(runs []*metrics.Summary, cells func(*metrics.Summary) []html.Cell) [][]string {
	var rows [][]string
	for _, s := range runs {
		var row []string
		for _, c := range cells(s) {
			row = append(row, c.Text)
		}
		row[0] = mdEscape(row[0])
		rows = append(rows, row)
	}
	return rows
}
