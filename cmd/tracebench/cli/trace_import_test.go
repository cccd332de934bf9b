package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceImport checks a proxy log and a vLLM log become native traces
// that hold no prompt text, describe and replay.
func TestTraceImport(t *testing.T) {
	for _, tc := range []struct {
		log, tokenizer, want string
	}{
		{"proxy.jsonl", "whitespace", "imported 3 requests of ../../../traces/testdata/import/proxy.jsonl"},
		{"vllm.log", "tiktoken", "imported 3 requests of ../../../traces/testdata/import/vllm.log"},
		{"proxy.jsonl", "hf:../../../traces/tokenizer/testdata/hf/llama3.json", "(tokenizer hf:llama3.json, 16-token blocks"},
	} {
		log := filepath.Join("..", "..", "..", "traces", "testdata", "import", tc.log)
		out := filepath.Join(t.TempDir(), "trace.jsonl")
		code, _, errOut := runCLI(t, "trace", "import", log, "--tokenizer", tc.tokenizer, "-o", out)
		if code != 0 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "passed over 2 other lines") && !strings.Contains(errOut, "passed over 1 other line;") && !strings.HasSuffix(strings.TrimSpace(errOut), "passed over 1 other line") {
			t.Fatalf("%s: exit %d, stderr %q", tc.log, code, errOut)
		}
		b, _ := os.ReadFile(out)
		if strings.Contains(string(b), "kumquat") || strings.Contains(string(b), "Zanzibar") {
			t.Errorf("%s: the trace holds prompt text", tc.log)
		}
		code, stats, _ := runCLI(t, "trace", "stats", out)
		if code != 0 || !strings.Contains(stats, "(native)") || !strings.Contains(stats, "requests                 3") {
			t.Errorf("%s: stats exit %d:\n%s", tc.log, code, stats)
		}
		if code, _, errOut := runCLI(t, "replay", "--sim", "1", "--trace", out, "--out", filepath.Join(t.TempDir(), "r.jsonl")); code != 0 {
			t.Errorf("%s: replay exit %d: %s", tc.log, code, errOut)
		}
	}
	if code, _, errOut := runCLI(t, "trace", "import", "x.log", "--tokenizer", "llama"); code != ExitUsage || !strings.Contains(errOut, "--tokenizer") {
		t.Errorf("bad tokenizer: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "tokenizer.json")
	os.WriteFile(bad, []byte(`{"model": {"type": "WordPiece", "vocab": {}}}`), 0o644)
	code, _, errOut := runCLI(t, "trace", "import", "x.log", "--tokenizer", "hf:"+bad)
	if code != ExitUsage || !strings.Contains(errOut, bad+": model type WordPiece is not supported") {
		t.Errorf("unsupported tokenizer.json: exit %d, %q", code, errOut)
	}
}
