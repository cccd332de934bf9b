package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeGenDirectory: a ServeGen model directory is a trace from the
// command line: stats name its seed, convert writes the drawn requests,
// and a simulated replay serves them.
func TestServeGenDirectory(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "traces", "testdata", "servegen")
	code, out, errOut := runCLI(t, "trace", "stats", dir, "--seed", "3")
	for _, want := range []string{"(servegen, seed 3)", "users          2"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("trace stats: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	conv := filepath.Join(t.TempDir(), "sg.jsonl")
	if code, _, errOut := runCLI(t, "trace", "convert", dir, "--seed", "3", "-o", conv); code != 0 {
		t.Fatalf("trace convert: exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(conv)
	if err != nil || !strings.Contains(string(data), `"user":"client-7"`) {
		t.Fatalf("converted trace lacks client-7: %v", err)
	}
	code, out2, errOut := runCLI(t, "trace", "stats", conv)
	if code != 0 || !strings.Contains(out2, "requests       2,8") {
		t.Fatalf("stats of the converted trace: exit %d\n%s%s", code, out2, errOut)
	}
	res := filepath.Join(t.TempDir(), "res")
	code, _, errOut = runCLI(t, "replay", "--sim", "2", "--trace", dir, "--max-requests", "40", "--out", res)
	if code != 0 {
		t.Fatalf("replay --sim: exit %d: %s", code, errOut)
	}
}
