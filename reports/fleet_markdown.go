package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/metrics"
)

// fleetIntro heads the fleet changes section.
const fleetIntro = "## Fleet changes\n\nBackends that joined or left while the run went on (the target was re-resolved " +
	"through DNS). A backend that left got no new requests; its in-flight ones finished.\n\n"

// writeFleet lists when Backends joined or left, per run (nothing when
// the fleet never changed).
func writeFleet(w io.Writer, runs []*metrics.Summary) {
	changed := sectionRuns(w, runs, func(s *metrics.Summary) bool { return len(s.Fleet) > 0 }, fleetIntro)
	if len(changed) == 0 {
		return
	}
	for _, s := range changed {
		fmt.Fprintf(w, "- %s:\n", mdEscape(s.Label()))
		for _, c := range s.Fleet {
			fmt.Fprintf(w, "  - %s\n", c)
		}
	}
	fmt.Fprintln(w)
}
