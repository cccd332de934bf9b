package predict

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/results"
)

// cpuFleetRun is a recorded run of two llama-servers (the CPU-fleet
// dataset of the command's tests).
var cpuFleetRun = filepath.Join("..", "cmd", "tracebench", "cli", "testdata", "cpu-fleet", "run-round-robin.jsonl")

func TestSpeedNote(t *testing.T) {
	tests := []struct {
		name string
		lat  engine.LatencyModel
		want []string
	}{
		{"model slower", engine.LatencyModel{Beta: 3 * time.Millisecond},
			[]string{"118 requests alone on their server", "2.59 ms per token", "median context of 432 tokens", "takes 3 ms (+15.9 %)"}},
		{"model faster, attention counted", engine.LatencyModel{Beta: 2 * time.Millisecond, AttendPerKey: 1000},
			[]string{"takes 2.43 ms (-6.0 %)"}},
	}
	ls, err := LoneDecode(cpuFleetRun)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := speedNote(ls, tc.lat)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("note %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestSpeedNoteNeedsServerTimings(t *testing.T) {
	// A run of a server that sends no timings of its own (vLLM, SGLang)
	// gives no note.
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	writeTimingless(t, path)
	ls, err := LoneDecode(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := speedNote(ls, engine.LatencyModel{Beta: time.Millisecond}); got != "" || ls.N != 0 {
		t.Fatalf("speedNote without server timings = %q (%d lone requests); want no note", got, ls.N)
	}
}

// writeTimingless writes a results file of lone requests without the
// server's own timings.
func writeTimingless(t *testing.T, path string) {
	t.Helper()
	var rs []*results.Result
	for i := range 8 {
		s := time.Duration(i) * time.Second
		rs = append(rs, &results.Result{Seq: int64(i), ID: strconv.Itoa(i), Sent: s, FirstToken: s + 10*time.Millisecond,
			Done: s + 100*time.Millisecond, Status: 200, OutputTokens: 10})
	}
	testfixtures.WriteResults(t, path, results.Header{Version: results.Version, Policy: "round-robin"}, rs)
}
