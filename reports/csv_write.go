package reports

import (
	"encoding/csv"
	"fmt"
	"io"
)

// writeCSV writes head and then the rows that rows hands to write, to w
// as CSV; what names the file in the error. A failed write sticks in the
// CSV writer, so the first one is the error returned after the flush.
func writeCSV(w io.Writer, what string, head []string, rows func(write func(row []string))) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(head)
	rows(func(row []string) { _ = cw.Write(row) })
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write %s: %w", what, err)
	}
	return nil
}
