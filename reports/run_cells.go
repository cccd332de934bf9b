package reports

import (
	"strings"

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

// cellsTable is the HTML table of each run's cells under head, with the
// notes below it.
func cellsTable(runs []*metrics.Summary, head, notes []string, cells func(*metrics.Summary) []html.Cell) *html.Table {
	t := &html.Table{Head: head, Note: strings.Join(notes, " ")}
	for _, s := range runs {
		t.Rows = append(t.Rows, cells(s))
	}
	return t
}
