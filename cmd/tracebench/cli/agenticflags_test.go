package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// agenticTestdata is the agentic fixture directory of package traces.
var agenticTestdata = filepath.Join("..", "..", "..", "traces", "testdata", "agentic")

func TestTraceAgentic(t *testing.T) {
	session := filepath.Join(agenticTestdata, "session.json")
	code, out, errOut := runCLI(t, "trace", "stats", session)
	if code != 0 || !strings.Contains(out, "(agentic)") || !strings.Contains(out, "sub-sessions             2 started by another session's request; 2 requests wait") ||
		!strings.Contains(out, "output types             text 4 (57.1 %), tool_use 3 (42.9 %), thinking 1 (14.3 %); 1 record none") {
		t.Fatalf("stats exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "trace", "stats", "--agentic-scale", "0.5", "--agentic-max-input", "3", "--agentic-join", "next", session)
	if code != 0 || !strings.Contains(out, "max 3\n") || !strings.Contains(out, "1 requests wait") {
		t.Fatalf("scaled stats exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	native := filepath.Join(t.TempDir(), "s.jsonl")
	if code, _, errOut = runCLI(t, "trace", "convert", session, "-o", native); code != 0 {
		t.Fatalf("convert exit %d: %s", code, errOut)
	}
	code, out, _ = runCLI(t, "trace", "stats", native)
	if code != 0 || !strings.Contains(out, "(native)") || !strings.Contains(out, "2 requests wait") || !strings.Contains(out, "recorded models") {
		t.Fatalf("stats of the converted trace, exit %d:\n%s", code, out)
	}
	dir := filepath.Join(agenticTestdata, "dir")
	code, _, errOut = runCLI(t, "replay", "--sim", "1", "--trace", dir, "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	if code != 0 {
		t.Fatalf("replay of an agentic directory exit %d: %s", code, errOut)
	}
}

func TestTraceAgenticFlagErrors(t *testing.T) {
	session := filepath.Join(agenticTestdata, "session.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "stats", "--workload", "agentic", "--agentic-scale", "0.5"}, "--agentic-scale applies to an agentic trace, not to a generated workload"},
		{[]string{"trace", "stats", "--agentic-stagger", "0s", session}, "--agentic-stagger 0s: want > 0"},
		{[]string{"trace", "stats", "--agentic-token-time", "0s", session}, "--agentic-token-time 0s: want > 0"},
		{[]string{"trace", "stats", "--agentic-scale", "3", session}, "--agentic-scale 3: want a factor in (0, 1]"},
		{[]string{"trace", "stats", "--agentic-max-input", "9", filepath.Join("..", "..", "..", "traces", "testdata", "bailian.jsonl")},
			"--agentic-max-input applies to the agentic format, not to a bailian trace"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %q", code, errOut, tc.want)
			}
		})
	}
}
