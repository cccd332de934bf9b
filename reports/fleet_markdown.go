package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/metrics"
)

// writeFleet lists when Backends joined or left, per run (nothing when
// the fleet never changed).
func writeFleet(w io.Writer, runs []*metrics.Summary) {
	changed := runsWith(runs, func(s *metrics.Summary) bool { return len(s.Fleet) > 0 })
	if len(changed) == 0 {
		return
	}
	fmt.Fprint(w, "## Fleet changes\n\nBackends that joined or left while the run went on (the target was re-resolved "+
		"through DNS). A backend that left got no new requests; its in-flight ones finished.\n\n")
	for _, s := range changed {
		fmt.Fprintf(w, "- %s:\n", mdEscape(s.Label()))
		for _, c := range s.Fleet {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	fmt.Fprintln(w)
}
