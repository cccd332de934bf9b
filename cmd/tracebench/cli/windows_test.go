package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayWindows: a trace whose time restarts fails with an error
// naming the file, the line, the field and --windows; with --windows
// sequential every request of both windows is replayed.
func TestReplayWindows(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "two-windows.jsonl")
	var data strings.Builder
	for _, ts := range []string{"0", "1", "0", "1"} {
		data.WriteString(`{"req_id": 1, "timestamp_s": ` + ts + `, "client": "a", "input_length": 8, "output_length": 2}` + "\n")
	}
	if err := os.WriteFile(trace, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args     []string
		code     int
		want     string
		requests int
	}{
		{nil, ExitError, trace + " line 3 field timestamp_s", 0},
		{nil, ExitError, "--windows sequential", 0},
		{[]string{"--windows", "sequential"}, ExitOK, "", 4},
		{[]string{"--windows", "twice"}, ExitError, `--windows "twice": want one or sequential`, 0},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "r.jsonl")
		var errOut bytes.Buffer
		args := append([]string{"replay", "--trace", trace, "--sim", "1", "--out", out}, tt.args...)
		code := Run(args, &bytes.Buffer{}, &errOut)
		if code != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d with %q", tt.args, code, errOut.String(), tt.code, tt.want)
		}
		if tt.requests > 0 {
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), `{"result":`); n != tt.requests {
				t.Errorf("%v: %d results, want %d", tt.args, n, tt.requests)
			}
		}
	}
}
