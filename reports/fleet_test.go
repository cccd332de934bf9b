package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// TestFleetChanges: a Backend that joined mid-run gets its own row (with
// the URL of its join event) and the report says when it joined and when
// another left.
func TestFleetChanges(t *testing.T) {
	h, rs := handRun()
	a := metrics.NewAccumulator(h, metrics.DefaultOptions())
	a.AddEvent(&results.Event{At: 1500 * time.Millisecond, Source: replay.FleetEventPrefix + "http://10.0.0.9:8000",
		Values: map[string]float64{replay.FleetJoined: 1, replay.FleetBackend: 2}})
	a.AddEvent(&results.Event{At: 2500 * time.Millisecond, Source: replay.FleetEventPrefix + "b1",
		Values: map[string]float64{replay.FleetLeft: 1, replay.FleetBackend: 1}})
	joined := *rs[2]
	joined.Backend = 2
	for _, r := range append(rs, &joined) {
		a.Add(r)
	}
	s := a.Finish(&results.Stop{Reason: "done", Elapsed: 10 * time.Second})
	if len(s.Backends) != 3 || s.Backends[2].Requests != 1 || s.Backends[2].URL != "http://10.0.0.9:8000" {
		t.Fatalf("backend rows %+v; want a third row for the joined backend with 1 request", s.Backends)
	}
	labelRuns([]*metrics.Summary{s})
	var buf bytes.Buffer
	renderMarkdown(&buf, []*metrics.Summary{s}, nil, RenderOptions{}.withDefaults())
	for _, want := range []string{"## Fleet changes", "backend b2 (http://10.0.0.9:8000) joined at 1.5 s",
		"backend b1 (b1) left at 2.5 s"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if clean := summarizeHand(metrics.DefaultOptions()); len(clean.Fleet) != 0 {
		t.Errorf("a fixed fleet lists changes: %v", clean.Fleet)
	}
}
