package cli

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort returns a loopback URL nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestBadInputErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}`+"\n"+
		`{"timestamp": 5, "input_length": "ten", "output_length": 5, "hash_ids": [1]}`+"\n"), 0o644)
	out := filepath.Join(dir, "r.jsonl")
	dead := closedPort(t)
	badCfg := filepath.Join(dir, "bad-value.yaml")
	os.WriteFile(badCfg, []byte("router:\n  name: prefix-cache\n  params:\n    block_size: lots\n"), 0o644)
	anonCfg := filepath.Join(dir, "anon.yaml")
	os.WriteFile(anonCfg, []byte("router:\n  params:\n    block_size: lots\n"), 0o644)
	notYAML := filepath.Join(dir, "broken.yaml")
	os.WriteFile(notYAML, []byte("router: [\n"), 0o644)
	unknownKey := filepath.Join(dir, "key.yaml")
	os.WriteFile(unknownKey, []byte("router:\n  name: prefix-cache\n  params: {blocksize: 4}\n"), 0o644)
	tests := []struct {
		name     string
		args     []string
		code     int
		mentions []string
	}{
		{"missing trace", []string{"replay", "--sim", "1", "--trace", filepath.Join(dir, "nope.jsonl"), "--out", out},
			ExitError, []string{"nope.jsonl"}},
		{"malformed trace", []string{"replay", "--sim", "1", "--trace", bad, "--out", out},
			ExitError, []string{"bad.jsonl", "line 2", "input_length"}},
		{"unknown policy", []string{"replay", "--sim", "1", "--policy", "fastest", "--out", out},
			ExitUsage, []string{`"fastest"`, "round-robin"}},
		{"unknown bench policy", []string{"bench", "--sim", "1", "--policies", "random,fastest", "--out", dir},
			ExitUsage, []string{`"fastest"`}},
		{"unreachable target", []string{"replay", "--target", dead, "--max-requests", "1", "--out", out},
			ExitError, []string{dead}},
		{"target not a URL", []string{"replay", "--target", "localhost:8000", "--max-requests", "1", "--out", out},
			ExitUsage, []string{"--target", `"localhost:8000"`}},
		{"unreachable bench target", []string{"bench", "--target", dead, "--max-requests", "1", "--out", dir},
			ExitError, []string{dead}},
		{"bad duration", []string{"replay", "--sim", "1", "--duration", "soon", "--out", out},
			ExitUsage, []string{"--duration", "soon"}},
		{"bad arrival", []string{"replay", "--sim", "1", "--rate", "5", "--arrival", "bursty", "--out", out},
			ExitUsage, []string{"--arrival", "bursty"}},
		{"bad shard", []string{"replay", "--sim", "1", "--shard", "4/4", "--out", out},
			ExitUsage, []string{"--shard"}},
		{"gamma cv 0", []string{"replay", "--sim", "1", "--rate", "5", "--arrival", "gamma", "--cv", "0", "--out", out},
			ExitUsage, []string{"--cv 0: want > 0"}},
		{"bench gamma cv 0", []string{"bench", "--sim", "1", "--arrival", "gamma", "--cv", "0", "--out", dir},
			ExitUsage, []string{"--cv 0: want > 0"}},
		{"bad router param value in the policy config", []string{"replay", "--sim", "1", "--policy-config", badCfg, "--out", out},
			ExitUsage, []string{"bad-value.yaml", "line 4", "block_size", `"lots"`}},
		{"same bad value as a flag", []string{"replay", "--sim", "1", "--policy", "prefix-cache", "--router-param", "block_size=lots", "--out", out},
			ExitUsage, []string{"block_size", `"lots"`}},
		{"bad value in a policy config naming no router", []string{"replay", "--sim", "1", "--policy", "prefix-cache",
			"--policy-config", anonCfg, "--out", out}, ExitUsage, []string{"anon.yaml", "block_size", `"lots"`}},
		{"unknown parameter in the policy config", []string{"bench", "--sim", "1", "--policies", "prefix-cache",
			"--policy-config", unknownKey, "--out", dir}, ExitUsage, []string{"key.yaml", "blocksize"}},
		{"policy config not YAML", []string{"sweep", "--sim", "1", "--policy-config", notYAML, "--out", dir},
			ExitUsage, []string{"broken.yaml"}},
		{"missing policy config", []string{"replay", "--sim", "1", "--policy-config", filepath.Join(dir, "none.yaml"), "--out", out},
			ExitError, []string{"none.yaml"}},
		{"sweep gamma cv 0", []string{"sweep", "--sim", "1", "--arrival", "gamma", "--cv", "0", "--out", dir},
			ExitUsage, []string{"--cv 0: want > 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tc.args, &stdout, &stderr)
			msg := strings.TrimSpace(stderr.String())
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, msg)
			}
			if strings.Count(msg, "\n") != 0 {
				t.Fatalf("want a one-line error, got:\n%s", msg)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(msg, m) {
					t.Fatalf("error %q does not mention %q", msg, m)
				}
			}
		})
	}
}
