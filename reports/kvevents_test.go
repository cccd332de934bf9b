package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/replay"
)

func TestKVEventRowsAndWarnings(t *testing.T) {
	extra := map[string]float64{}
	set := func(b int, vals map[string]float64) {
		for _, n := range replay.KVStatNames {
			extra[replay.KVExtraKey(b, n)] = vals[n]
		}
	}
	set(0, map[string]float64{"subscribed": 1, "batches": 10, "events": 40, "gaps": 2, "replayed": 3, "lost": 1,
		"malformed": 1, "unknown_tags": 2, "blocks": 7})
	set(1, map[string]float64{"unreachable": 1})
	set(2, map[string]float64{"subscribed": 1})
	set(3, map[string]float64{"subscribed": 1, "malformed": 5})
	set(4, map[string]float64{"subscribed": 1, "batches": 2, "events": 9, "lost_at_start": 3, "orphans": 6, "blocks": 4})
	s := &Summary{Stop: &replay.Stop{Extra: extra}}
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
	var buf bytes.Buffer
	writeKVEvents(&buf, []*Summary{s})
	for _, want := range []string{"## KV events", "| 0 | subscribed | 10 | 40 | 2 | 3 | 1 | 0 | 0 | 0 | 3 | 0 | 7 |",
		"| 1 | unreachable: fell back to load |", "| 2 | no batch: fell back to load |",
		"| 3 | undecodable: fell back to load |", "| 4 | joined late | 2 | 9 | 0 | 0 | 0 | 3 | 6 | 0 | 0 | 0 | 4 |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	// With the run's diagnoses, one warning per note, in its words, after
	// the one on batches lost at start.
	s.Warnings, s.warns = nil, nil
	s.KVNotes = []string{"backend 3 published 5 batches that could not be decoded (first error: x)"}
	kvWarnings(s)
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[1], "published 5 batches that could not be decoded (first error: x)") {
		t.Errorf("warnings %q", s.Warnings)
	}
	if rows := kvEventRows(&replay.Stop{}, 4); rows != nil {
		t.Errorf("rows without KV extras: %+v", rows)
	}
}

func TestFmtGapPts(t *testing.T) {
	for _, tt := range []struct {
		a, b float64
		want string
	}{{0.243, 0.182, "+6.1"}, {0.1710, 0.1712, "0.0"}, {0.10, 0.15, "-5.0"}, {math.NaN(), 0.1, "n/a"}} {
		if got := textfmt.GapPts(tt.a, tt.b); got != tt.want {
			t.Errorf("fmtGapPts(%v, %v) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}
