package metrics

import (
	"fmt"
	"strings"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// KVEventStats is what one backend's KV event stream delivered to a
// KV-event router (precise-prefix), from the stop line.
type KVEventStats struct {
	// Backend is the backend's index.
	Backend int `json:"backend"`
	// Subscribed: the stream was connected; Unreachable: it could not be
	// reached, and the router decided by load alone.
	Subscribed  bool `json:"subscribed"`
	Unreachable bool `json:"unreachable"`
	// Batches and Events applied; Gaps in the sequence numbers, batches
	// Replayed through the replay socket and Lost for good; Restarts
	// (AllBlocksCleared or a sequence reset).
	Batches  int64 `json:"batches"`
	Events   int64 `json:"events"`
	Gaps     int64 `json:"gaps"`
	Replayed int64 `json:"replayed"`
	Lost     int64 `json:"lost"`
	// LostAtStart batches were sent before the stream joined and not
	// replayed; Orphans stored events named parents never seen (their
	// blocks start chains of their own).
	LostAtStart int64 `json:"lost_at_start"`
	Orphans     int64 `json:"orphans"`
	Restarts    int64 `json:"restarts"`
	// Malformed messages, UnknownTags and BlockSizeMismatch events
	// skipped; Overflow blocks past the index's per-backend limit.
	Malformed         int64 `json:"malformed"`
	UnknownTags       int64 `json:"unknown_tags"`
	BlockSizeMismatch int64 `json:"block_size_mismatch"`
	Overflow          int64 `json:"overflow"`
	// Blocks is the blocks indexed for the backend at the end.
	Blocks int64 `json:"blocks"`
}

// kvEventRows reads the per-backend KV event figures from the stop line
// (nil when the Run's router read no KV events).
func kvEventRows(stop *results.Stop, backends int) []KVEventStats {
	if stop == nil {
		return nil
	}
	var rows []KVEventStats
	for b := range max(backends, 64) {
		get := func(name string) (int64, bool) {
			v, ok := stop.Extra[replay.KVExtraKey(b, name)]
			return int64(v), ok
		}
		if _, ok := get("events"); !ok {
			continue
		}
		r := KVEventStats{Backend: b}
		sub, _ := get("subscribed")
		unr, _ := get("unreachable")
		r.Subscribed, r.Unreachable = sub > 0, unr > 0
		for _, f := range []struct {
			name string
			dst  *int64
		}{{"batches", &r.Batches}, {"events", &r.Events}, {"gaps", &r.Gaps}, {"replayed", &r.Replayed},
			{"lost", &r.Lost}, {"lost_at_start", &r.LostAtStart}, {"orphans", &r.Orphans},
			{"restarts", &r.Restarts}, {"malformed", &r.Malformed},
			{"unknown_tags", &r.UnknownTags}, {"block_size_mismatch", &r.BlockSizeMismatch},
			{"overflow", &r.Overflow}, {"blocks", &r.Blocks}} {
			*f.dst, _ = get(f.name)
		}
		rows = append(rows, r)
	}
	return rows
}

// kvWarnings warns, once per backend, where a KV-event router decided by
// load: the run's diagnoses when its stop line has them, else (results
// files of older versions) from the counts.
func kvWarnings(s *Summary) {
	kvLateWarning(s)
	for _, n := range s.KVNotes {
		s.addWarning(Warning{"KV events: " + n,
			"where the router had no cache view of a backend it decided by load, and its prefix hits there are a load balancer's", ""})
	}
	if len(s.KVNotes) > 0 {
		return
	}
	var down, silent []string
	for _, r := range s.KVEvents {
		switch {
		case r.Unreachable:
			down = append(down, fmt.Sprint(r.Backend))
		case r.Batches == 0:
			silent = append(silent, fmt.Sprint(r.Backend))
		}
	}
	if len(down) > 0 {
		s.addWarning(Warning{"KV event streams were unreachable",
			"the router fell back to load: it decided without any cache view and its prefix hits are those of a load balancer",
			"backends " + strings.Join(down, ", ")})
	}
	if len(silent) > 0 {
		s.addWarning(Warning{"no KV event batch was applied for some backends",
			"the router saw no cache on them and fell back to load for them",
			"backends " + strings.Join(silent, ", ")})
	}
}

// kvLateWarning warns once where streams missed batches sent before
// they joined, or stored blocks under parents never seen.
func kvLateWarning(s *Summary) {
	var late []string
	for _, r := range s.KVEvents {
		if r.LostAtStart > 0 || r.Orphans > 0 {
			late = append(late, fmt.Sprintf("backend %d: %s lost at start, %s orphan events", r.Backend,
				textfmt.Count(r.LostAtStart), textfmt.Count(r.Orphans)))
		}
	}
	if len(late) > 0 {
		s.addWarning(Warning{"KV event batches were lost at start",
			"the router never saw the blocks in them, so hits on those prefixes were neither routed to nor predicted " +
				"and the predicted hit rate is below the server's; a replay endpoint (--kv-events ,REPLAY) recovers what its " +
				"buffer still holds",
			strings.Join(late, "; ")})
	}
}
