package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchSeedsVerdict(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	code := Run([]string{"bench", "--sim", "2", "--policies", "round-robin,prefix-cache", "--seeds", "3",
		"--max-requests", "60", "--slo-ttft", "30ms", "--out", dir}, &so, &se)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, se.String())
	}
	out := so.String()
	if !strings.Contains(out, "verdict for SLO TTFT ≤ 30ms") || !strings.Contains(out, "over 3 seeds") {
		t.Fatalf("no verdict over 3 seeds in:\n%s", out)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.SplitN(string(report), "\n\n", 2)[1], "## Verdict") {
		t.Fatalf("report.md does not open with the verdict:\n%.400s", report)
	}
	for _, k := range []string{"seed-1", "seed-2"} {
		if _, err := os.Stat(filepath.Join(dir, k, "results-prefix-cache.jsonl")); err != nil {
			t.Errorf("seed run missing: %v", err)
		}
	}
	if code := Run([]string{"bench", "--sim", "1", "--seeds", "0", "--out", dir}, &so, &se); code != ExitUsage {
		t.Fatalf("--seeds 0: exit %d, want %d", code, ExitUsage)
	}
}

func TestSweepSeedsVerdict(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	code := Run([]string{"sweep", "--sim", "2", "--policies", "round-robin,prefix-cache", "--seeds", "2",
		"--slo-ttft", "200ms", "--slo-tpot", "50ms", "--max-requests", "80", "--max-runs", "6", "--out", dir}, &so, &se)
	if code != 0 {
		t.Fatalf("sweep exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "on sustained rate") || !strings.Contains(so.String(), "over 2 seeds") {
		t.Fatalf("no capacity verdict over 2 seeds in:\n%s", so.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil || !strings.Contains(string(md), "## Verdict") {
		t.Fatalf("sweep.md lacks the verdict (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "seed-1", "runs")); err != nil {
		t.Fatalf("second seed's runs: %v", err)
	}
}
