package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// kvEventsIntro heads the KV events section.
const kvEventsIntro = "## KV events\n\n" +
	"What each backend's KV event stream gave the router that reads it. Gaps are holes in the " +
	"sequence numbers; replayed batches were recovered through the replay socket, lost ones were not. " +
	"Batches lost at start were sent before the stream joined and not replayed; orphan events stored blocks " +
	"under a parent never seen, which start chains of their own. " +
	"Malformed messages, unknown event tags and blocks of another block size are counted and skipped.\n\n"

// kvEventsHead is the KV event table's header.
var kvEventsHead = []string{"#", "stream", "batches", "events", "gaps", "replayed", "lost", "lost at start",
	"orphan events", "restarts", "bad input", "overflow", "blocks at end"}

// writeKVEvents writes the KV event table of every run that has one.
func writeKVEvents(w io.Writer, runs []*metrics.Summary) {
	streamed := sectionRuns(w, runs, func(s *metrics.Summary) bool { return len(s.KVEvents) > 0 }, kvEventsIntro)
	perRunTables(w, streamed, len(runs) > 1, kvEventsHead, "ll", kvEventRows)
}

// kvEventRows are one run's KV event table rows, one per backend.
func kvEventRows(s *metrics.Summary) [][]string {
	var rows [][]string
	for _, r := range s.KVEvents {
		rows = append(rows, []string{fmt.Sprint(r.Backend), kvStreamState(r), textfmt.Count(r.Batches), textfmt.Count(r.Events),
			textfmt.Count(r.Gaps), textfmt.Count(r.Replayed), textfmt.Count(r.Lost), textfmt.Count(r.LostAtStart), textfmt.Count(r.Orphans),
			textfmt.Count(r.Restarts),
			textfmt.Count(r.Malformed + r.UnknownTags + r.BlockSizeMismatch), textfmt.Count(r.Overflow), textfmt.Count(r.Blocks)})
	}
	return rows
}

// kvStreamState says how a backend's KV event stream went, for the
// table's stream column.
func kvStreamState(r metrics.KVEventStats) string {
	switch {
	case r.Unreachable:
		return "unreachable: fell back to load"
	case !r.Subscribed:
		return "not connected"
	case r.Batches == 0 && r.Malformed > 0:
		return "undecodable: fell back to load"
	case r.Batches == 0:
		return "no batch: fell back to load"
	case r.LostAtStart > 0 || r.Orphans > 0:
		return "joined late"
	}
	return "subscribed"
}
