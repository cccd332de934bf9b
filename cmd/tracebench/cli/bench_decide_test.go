package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchDecides: bench without a backend flag runs its two stages and
// prints the verdict first, the question, both stages and their agreement,
// then a table of at most 120 columns, and writes report.md with the
// decision; --wide prints every column.
func TestBenchDecides(t *testing.T) {
	if sweepRace {
		t.Skip("the two-stage bench runs capacity sweeps, which -race slows about five times; run without -race")
	}
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "bench", "--quick", "--policies", "round-robin,prefix-cache", "--max-requests", "60",
		"--slo-ttft", "100ms", "--seeds", "2", "--wide", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if !strings.HasPrefix(strings.TrimLeft(out, "\n"), "verdict: ") {
		t.Errorf("stdout does not open with the verdict:\n%s", out)
	}
	for _, want := range []string{"question: which router sustains the highest request rate", "stage 1, capacity in virtual time",
		"stage 2, confirmation", "agreement: ", "out tok/s", "report: ", "html: "} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"bench: stage 1 done in", "bench: stage 2 done in"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "## Decision") {
		t.Errorf("report.md without a decision section (%v)", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	for _, want := range []string{`id="stage1"`, `id="stage2"`, `id="plot-capacity"`, "Question: which router"} {
		if err != nil || !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s (%v)", want, err)
		}
	}
}

// TestBenchDecideFlags: flags that fix one rate are refused without a
// backend flag, naming what to give instead.
func TestBenchDecideFlags(t *testing.T) {
	for _, f := range []string{"--rate", "--time-scale"} {
		code, _, errOut := runCLI(t, "bench", f, "2", "--out", t.TempDir())
		if code != ExitUsage || !strings.Contains(errOut, "--mock N") {
			t.Errorf("%s: exit %d, stderr %q; want a usage error naming --mock N", f, code, errOut)
		}
	}
}

// TestBenchOneRouter: bench with one router measures its capacity in
// stage 1, says there is nothing to decide, runs no stage 2 and names no
// Go field.
func TestBenchOneRouter(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "bench", "--quick", "--policies", "random", "--max-requests", "200", "--seeds", "2",
		"--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	want := regexp.MustCompile(`nothing to decide: random is the only router; it sustains [0-9.]+ req/s ` +
		`\(95 % CI [0-9.]+ to [0-9.]+ req/s over 2 seeds\)`)
	if !want.MatchString(out) || !strings.Contains(out, "question: what request rate random sustains") {
		t.Errorf("stdout does not state the capacity and that there is nothing to decide:\n%s", out)
	}
	if strings.Contains(out+errOut, "Spec.") || strings.Contains(errOut, "stage 2") {
		t.Errorf("a Go field or a stage 2 in the output:\n%s\n%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "capacity", "sweep.md")); err != nil || !strings.Contains(out, "report: ") {
		t.Errorf("no capacity report written and named (%v):\n%s", err, out)
	}
}
