package calibrate

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// writeDecodes writes a results file of requests that decoded 11 tokens
// at the given ms per token each, on backend 0: server-timed (llama.cpp's
// timings) or, with client, timed by the client only.
func writeDecodes(t *testing.T, path string, msPerToken []float64, client bool) {
	t.Helper()
	var rs []*results.Result
	for i, ms := range msPerToken {
		r := &results.Result{Seq: int64(i), ID: filepath.Base(path) + string(rune('a'+i)), Status: 200, CompletionTokens: 11,
			FirstToken: time.Second, Done: time.Second + time.Duration(10*ms*float64(time.Millisecond))}
		if !client {
			r.Server = &results.ServerTimings{PredictedN: 11, PredictedMS: 11 * ms}
		}
		rs = append(rs, r)
	}
	testfixtures.WriteResults(t, path, results.Header{Version: results.Version}, rs)
}

// TestSpeedOverProbe compares a probe's first phase with its repeat.
func TestSpeedOverProbe(t *testing.T) {
	cases := []struct {
		name         string
		first, again []float64
		client       bool
		repeat       bool
		want         string
		moved        bool
	}{
		{"held", []float64{2, 2.1, 1.9}, []float64{2.05, 2.1, 2}, false, true, "held within 10 %", false},
		{"moved, server-timed", []float64{2, 2.1, 1.9}, []float64{2.6, 2.5, 2.7}, false, true, "+30.0 %", true},
		{"moved, client-timed", []float64{2, 2, 2}, []float64{1.5, 1.5, 1.5}, true, true, "-25.0 %", true},
		{"no repeat", []float64{2}, nil, false, false, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := []string{filepath.Join(dir, "probe-c1.jsonl")}
			writeDecodes(t, files[0], tc.first, tc.client)
			if tc.repeat {
				files = append(files, filepath.Join(dir, "probe-c1"+results.RepeatSuffix+".jsonl"))
				writeDecodes(t, files[1], tc.again, tc.client)
			}
			note, moved := speedOverProbe(files)
			if moved != tc.moved || !strings.Contains(note, tc.want) || (tc.want == "") != (note == "") {
				t.Fatalf("note %q moved %v; want %q in it, moved %v", note, moved, tc.want, tc.moved)
			}
		})
	}
}
