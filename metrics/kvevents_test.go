package metrics

import (
	"strings"
	"testing"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

func TestKVEventRowsAndWarnings(t *testing.T) {
	extra := testfixtures.KVEventExtra(replay.KVStatNames, replay.KVExtraKey)
	s := &Summary{Stop: &results.Stop{Extra: extra}}
	s.KVEvents = kvEventRows(s.Stop, 5)
	if len(s.KVEvents) != 5 || s.KVEvents[0].Gaps != 2 || s.KVEvents[0].Replayed != 3 || !s.KVEvents[1].Unreachable ||
		s.KVEvents[4].LostAtStart != 3 || s.KVEvents[4].Orphans != 6 || s.KVEvents[4].Malformed != 0 {
		t.Fatalf("rows %+v", s.KVEvents)
	}
	kvWarnings(s)
	if len(s.Warnings) != 3 || !strings.Contains(s.Warnings[0], "lost at start (backend 4: 3 lost at start, 6 orphan events)") ||
		!strings.Contains(s.Warnings[1], "fell back to load") || !strings.Contains(s.Warnings[2], "backends 2, 3") {
		t.Errorf("warnings %q", s.Warnings)
	}
	// With the run's diagnoses, one warning per note, in its words, after
	// the one on batches lost at start.
	s.Warnings, s.warns = nil, nil
	s.KVNotes = []string{"backend 3 published 5 batches that could not be decoded (first error: x)"}
	kvWarnings(s)
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[1], "published 5 batches that could not be decoded (first error: x)") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if rows := kvEventRows(&results.Stop{}, 4); rows != nil {
		t.Errorf("rows without KV extras: %+v", rows)
	}
}
