package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/metrics"
)

// writeFleet lists when Backends joined or left, per run (nothing when
// the fleet never changed).
func writeFleet(w io.Writer, runs []*metrics.Summary) {
	any := false
	for _, s := range runs {
		any = any || len(s.Fleet) > 0
	}
	if !any {
		return
	}
	fmt.Fprint(w, "## Fleet changes\n\nBackends that joined or left while the run went on (the target was re-resolved "+
		"through DNS). A backend that left got no new requests; its in-flight ones finished.\n\n")
	for _, s := range runs {
		if len(s.Fleet) == 0 {
			continue
		}
		fmt.Fprintf(w, "- %s:\n", mdEscape(s.Label()))
		for _, c := range s.Fleet {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	fmt.Fprintln(w)
}
