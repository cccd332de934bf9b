package cli

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// wantOneLineError runs the CLI with args and checks that it exits with
// code and writes one line to stderr mentioning each of mentions.
func wantOneLineError(t *testing.T, args []string, code int, mentions []string) {
	t.Helper()
	got, _, stderr := runCLI(t, args...)
	msg := strings.TrimSpace(stderr)
	if got != code {
		t.Fatalf("exit %d, want %d; stderr:\n%s", got, code, msg)
	}
	if strings.Count(msg, "\n") != 0 {
		t.Errorf("want a one-line error, got:\n%s", msg)
	}
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			t.Errorf("error %q does not mention %q", msg, m)
		}
	}
}

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
	bad := writeFile(t, dir, "bad.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}`+"\n"+
		`{"timestamp": 5, "input_length": "ten", "output_length": 5, "hash_ids": [1]}`+"\n")
	out := filepath.Join(dir, "r.jsonl")
	dead := closedPort(t)
	badCfg := writeFile(t, dir, "bad-value.yaml", "router:\n  name: prefix-cache\n  params:\n    block_size: lots\n")
	anonCfg := writeFile(t, dir, "anon.yaml", "router:\n  params:\n    block_size: lots\n")
	notYAML := writeFile(t, dir, "broken.yaml", "router: [\n")
	unknownKey := writeFile(t, dir, "key.yaml", "router:\n  name: prefix-cache\n  params: {blocksize: 4}\n")
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
		t.Run(tc.name, func(t *testing.T) { wantOneLineError(t, tc.args, tc.code, tc.mentions) })
	}
}
