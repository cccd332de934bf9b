package reports

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/tracebench/tracebench/metrics"
)

// WriteTable writes the compact terminal comparison table, at most 120
// columns wide for policy names up to 24 characters: one row per Run, the
// columns that decide (compactColumns), the best value of each column
// marked with a trailing "*".
func WriteTable(w io.Writer, runs []*metrics.Summary) error {
	return writeTable(w, runs, compactColumns)
}

// WriteWideTable writes the terminal comparison table with every column
// of the markdown comparison (comparisonColumns; `--wide`).
func WriteWideTable(w io.Writer, runs []*metrics.Summary) error {
	return writeTable(w, runs, comparisonColumns)
}

// writeTable writes the terminal table of runs with cols.
func writeTable(w io.Writer, runs []*metrics.Summary, cols []column) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignRight, PerColumn: []tw.Align{tw.AlignLeft}}))
	head := []any{"policy"}
	for _, c := range cols {
		head = append(head, c.head)
	}
	t.Header(head...)
	labelRuns(runs)
	marks := best(cols, runs)
	for i, s := range runs {
		row := []any{s.Name()}
		for c, col := range cols {
			v := col.format(col.value(s))
			if marks[i][c] {
				v += "*"
			}
			row = append(row, v)
		}
		if err := t.Append(row...); err != nil {
			return fmt.Errorf("comparison table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("comparison table: %w", err)
	}
	if len(runs) > 1 {
		if _, err := fmt.Fprintln(w, "* best value of the column"); err != nil {
			return err
		}
	}
	for _, line := range shardNotes(runs) {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
