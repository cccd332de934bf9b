package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/metrics"
)

// runsWith returns the runs that have what has looks for, in order: the
// runs a section lists, none when it has nothing to show.
func runsWith(runs []*metrics.Summary, has func(*metrics.Summary) bool) []*metrics.Summary {
	var out []*metrics.Summary
	for _, s := range runs {
		if has(s) {
			out = append(out, s)
		}
	}
	return out
}

// sectionRuns returns the runs a section lists (see runsWith) and, when
// there are any, first writes intro, the section's heading and text; a
// section with no run to list writes nothing.
func sectionRuns(w io.Writer, runs []*metrics.Summary, has func(*metrics.Summary) bool, intro string) []*metrics.Summary {
	shown := runsWith(runs, has)
	if len(shown) > 0 {
		fmt.Fprint(w, intro)
	}
	return shown
}

// perRunTables writes one markdown table per run of shown, with the
// columns head aligned as align (see mdTable) and the rows rowsOf gives
// for the run; titled puts each table under a "###" heading naming its
// run (for reports of several runs).
func perRunTables(w io.Writer, shown []*metrics.Summary, titled bool, head []string, align string,
	rowsOf func(*metrics.Summary) [][]string) {
	for _, s := range shown {
		if titled {
			fmt.Fprintf(w, "### %s\n\n", mdEscape(s.Name()))
		}
		mdTable(w, head, align, rowsOf(s))
	}
}
