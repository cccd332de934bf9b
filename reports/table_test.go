package reports

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tracebench/tracebench/results"
)

// TestTableWidth: the default terminal table fits 120 columns with policy
// names up to 24 characters and figures of every magnitude the columns
// take, matches its golden file, and --wide holds every column.
func TestTableWidth(t *testing.T) {
	runs := goldenSummaries(t)
	long := *runs[0]
	long.Header = results.Header{Policy: "session-affinity+vtc-abc"}
	long.TTFT.P50, long.TTFT.P99, long.TPOT.P50, long.SLA.Goodput = 123456, 1234567, 12345, 12345
	runs = append(runs, &long)
	tests := []struct {
		name   string
		write  func(*bytes.Buffer) error
		golden string
		limit  int
		heads  []column
	}{
		{"compact", func(b *bytes.Buffer) error { return WriteTable(b, runs) }, "table-compact.txt", 120, compactColumns},
		{"wide", func(b *bytes.Buffer) error { return WriteWideTable(b, runs) }, "table-wide.txt", 0, comparisonColumns},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.golden, b.Bytes())
			widest := 0
			for _, line := range strings.Split(b.String(), "\n") {
				widest = max(widest, utf8.RuneCountInString(line))
			}
			if tc.limit > 0 && widest > tc.limit {
				t.Errorf("widest line %d columns, want ≤ %d:\n%s", widest, tc.limit, b.String())
			}
			for _, c := range tc.heads {
				if !strings.Contains(b.String(), c.head) {
					t.Errorf("table lacks column %q", c.head)
				}
			}
		})
	}
}
