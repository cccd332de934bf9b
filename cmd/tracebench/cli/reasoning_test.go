package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// reasoningProfile writes a profile file: the fast model, and half the
// requests reasoning for 12 tokens on average.
func reasoningProfile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "think.yaml")
	yaml := "name: think\nlatency:\n  beta: 574us\n  c_prefill: 10us\nreasoning: {share: 0.5, mean_tokens: 12, cv: 0.5}\n"
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReplayReasoningEndToEnd replays against the mock fleet over
// loopback HTTP, with chat, completions (reading <think> tags) and the
// Responses API, and in virtual time, with a profile whose requests
// reason: the report shows the reasoning and TTFOT, and a TTFOT SLO
// moves the SLA.
func TestReplayReasoningEndToEnd(t *testing.T) {
	prof := reasoningProfile(t)
	tests := []struct {
		name string
		args []string
	}{
		{"chat", []string{"--mock", "1", "--api", "chat", "--mock-profile", prof}},
		{"completions with tags", []string{"--mock", "1", "--reasoning-tags", "--mock-profile", prof}},
		{"responses", []string{"--mock", "1", "--api", "responses", "--mock-profile", prof}},
		{"sim, reasoning from --mock-set", []string{"--sim", "2", "--mock-profile", "fast",
			"--mock-set", "reasoning_share=0.5", "--mock-set", "reasoning_mean_tokens=12"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.jsonl")
			args := append([]string{"replay", "--workload", "shared-prefix",
				"--workload-param", "requests=40", "--rate", "40", "--slo-ttfot", "10s", "--out", out,
				"--report-dir", dir}, tc.args...)
			var stdout, stderr bytes.Buffer
			if code := Run(args, &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			o := metrics.DefaultOptions()
			sum, err := metrics.Summarize(out, o)
			if err != nil {
				t.Fatal(err)
			}
			r := sum.Reasoning
			if sum.OK != 40 || r.Requests < 8 || r.Requests > 32 || !(r.Share > 0 && r.Share < 1) || sum.TTFOT.Count == 0 {
				t.Fatalf("ok %d, reasoning %+v, TTFOT %+v: want about half the 40 requests reasoning", sum.OK, r, sum.TTFOT)
			}
			if !(sum.TTFOT.Max >= sum.TTFT.Max) {
				t.Errorf("TTFOT max %v below TTFT max %v", sum.TTFOT.Max, sum.TTFT.Max)
			}
			md, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(md), "### Reasoning") || !strings.Contains(string(md), "TTFOT ≤ 10s") {
				t.Errorf("report.md lacks the reasoning section or the TTFOT bound")
			}
			o.SLO.TTFOT = 1 // 1 ns: no request meets it
			tight, err := metrics.Summarize(out, o)
			if err != nil {
				t.Fatal(err)
			}
			if tight.SLA.Met != 0 {
				t.Errorf("a 1 ns TTFOT bound met by %d requests", tight.SLA.Met)
			}
		})
	}
}

// TestReasoningBadInput: a wrong --api, a Responses API run against a
// server that has none, a negative TTFOT bound and a bad reasoning
// profile each fail with one line naming the flag or the file, line and
// field.
func TestReasoningBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\nreasoning:\n  share: 2\n  mean_tokens: 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown api", []string{"replay", "--sim", "1", "--api", "embeddings", "--out", out}, `--api "embeddings": want completions, chat, responses`},
		{"responses on llama.cpp", []string{"replay", "--target", "http://127.0.0.1:9", "--dialect", "llamacpp", "--api", "responses", "--out", out},
			`--api "responses": llamacpp servers have no Responses API`},
		{"negative TTFOT bound", []string{"replay", "--sim", "1", "--slo-ttfot", "-1s", "--out", out}, "--slo-ttfot: negative duration"},
		{"report: negative TTFOT bound", []string{"report", "--slo-ttfot", "-2s", out}, "--slo-ttfot: negative duration"},
		{"bad reasoning profile", []string{"replay", "--sim", "1", "--mock-profile", bad, "--out", out}, bad + ":3: reasoning.share: 2: want in [0, 1]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tc.args, &stdout, &stderr)
			if code == ExitOK || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q: want a failure naming %q", code, stderr.String(), tc.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr.String()), "\n"); n > 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", n+1, stderr.String())
			}
		})
	}
}
