package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceStatsOffsetTrace checks a trace whose clock starts late (a
// slice cut from a longer trace) is described from its first record:
// --duration keeps the requests of its first minutes, --start skips,
// and the header names the original offset.
func TestTraceStatsOffsetTrace(t *testing.T) {
	var b strings.Builder
	for i := range 100 { // one request every 10 s from 1,178,625 ms
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 10, "output_length": 2}`+"\n", 1178625+10000*i)
	}
	path := filepath.Join(t.TempDir(), "slice.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "requests       100"},
		{nil, "(mooncake, starts at 1178.625 s)"},
		{[]string{"--duration", "300s"}, "requests       30"},
		{[]string{"--start", "60s"}, "requests       94"},
		{[]string{"--start", "60s", "--duration", "100s"}, "requests       10"},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, append([]string{"trace", "stats", path}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("trace stats %v: exit %d, want %q in\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
}
