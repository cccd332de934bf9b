package reports

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// TestKVEventsTable checks the KV events table of a run whose stop
// line carries every backend's KV event figures.
func TestKVEventsTable(t *testing.T) {
	extra := testfixtures.KVEventExtra(replay.KVStatNames, replay.KVExtraKey)
	a := metrics.NewAccumulator(results.Header{Backends: []string{"b0", "b1", "b2", "b3", "b4"}}, metrics.DefaultOptions())
	s := a.Finish(&results.Stop{Reason: "done", Extra: extra})
	var buf bytes.Buffer
	writeKVEvents(&buf, []*metrics.Summary{s})
	for _, want := range []string{"## KV events", "| 0 | subscribed | 10 | 40 | 2 | 3 | 1 | 0 | 0 | 0 | 3 | 0 | 7 |",
		"| 1 | unreachable: fell back to load |", "| 2 | no batch: fell back to load |",
		"| 3 | undecodable: fell back to load |", "| 4 | joined late | 2 | 9 | 0 | 0 | 0 | 3 | 6 | 0 | 0 | 0 | 4 |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
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
