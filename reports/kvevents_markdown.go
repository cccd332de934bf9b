package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// writeKVEvents writes the KV event table of every run that has one.
func writeKVEvents(w io.Writer, runs []*metrics.Summary) {
	streamed := runsWith(runs, func(s *metrics.Summary) bool { return len(s.KVEvents) > 0 })
	if len(streamed) == 0 {
		return
	}
	fmt.Fprint(w, "## KV events\n\n")
	fmt.Fprint(w, "What each backend's KV event stream gave the router that reads it. Gaps are holes in the "+
		"sequence numbers; replayed batches were recovered through the replay socket, lost ones were not. "+
		"Batches lost at start were sent before the stream joined and not replayed; orphan events stored blocks "+
		"under a parent never seen, which start chains of their own. "+
		"Malformed messages, unknown event tags and blocks of another block size are counted and skipped.\n\n")
	for _, s := range streamed {
		if len(runs) > 1 {
			fmt.Fprintf(w, "### %s\n\n", mdEscape(s.Name()))
		}
		var rows [][]string
		for _, r := range s.KVEvents {
			state := "subscribed"
			switch {
			case r.Unreachable:
				state = "unreachable: fell back to load"
			case !r.Subscribed:
				state = "not connected"
			case r.Batches == 0 && r.Malformed > 0:
				state = "undecodable: fell back to load"
			case r.Batches == 0:
				state = "no batch: fell back to load"
			case r.LostAtStart > 0 || r.Orphans > 0:
				state = "joined late"
			}
			rows = append(rows, []string{fmt.Sprint(r.Backend), state, textfmt.Count(r.Batches), textfmt.Count(r.Events),
				textfmt.Count(r.Gaps), textfmt.Count(r.Replayed), textfmt.Count(r.Lost), textfmt.Count(r.LostAtStart), textfmt.Count(r.Orphans),
				textfmt.Count(r.Restarts),
				textfmt.Count(r.Malformed + r.UnknownTags + r.BlockSizeMismatch), textfmt.Count(r.Overflow), textfmt.Count(r.Blocks)})
		}
		mdTable(w, []string{"#", "stream", "batches", "events", "gaps", "replayed", "lost", "lost at start",
			"orphan events", "restarts", "bad input", "overflow", "blocks at end"}, "ll", rows)
	}
}
