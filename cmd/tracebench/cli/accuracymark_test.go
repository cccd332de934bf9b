package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// accuracyMarksEnv names a file the accuracy tests append their marker
// lines to, one per skip or missed target; .ci/run sets it and prints
// the file as its summary, so a skipped accuracy test or a missed target
// cannot pass CI unseen (go test shows nothing of a passing package
// without -v).
const accuracyMarksEnv = "TRACEBENCH_ACCURACY_MARKS"

// accuracySkip skips t, saying why on a stable marker line:
// "ACCURACY SKIPPED <test>: <why>".
func accuracySkip(t *testing.T, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	mark(t, fmt.Sprintf("ACCURACY SKIPPED %s: %s", t.Name(), oneLine(why)))
	t.Skip(why)
}

// targetMissed records a figure outside its target (but maybe within
// its bound) on a stable marker line:
// "TARGET MISSED <test> <metric> <value> target <t> bound <b>", the
// three figures in unit.
func targetMissed(t *testing.T, metric string, value, target, bound float64, unit string) {
	t.Helper()
	mark(t, fmt.Sprintf("TARGET MISSED %s %s %+.1f%s target %g%s bound %g%s", t.Name(),
		strings.ReplaceAll(metric, " ", "_"), value, unit, target, unit, bound, unit))
}

// mark logs line and appends it to the file accuracyMarksEnv names, if
// any.
func mark(t *testing.T, line string) {
	t.Helper()
	t.Log(line)
	path := os.Getenv(accuracyMarksEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("%s: %v", accuracyMarksEnv, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Errorf("%s: %v", accuracyMarksEnv, err)
	}
}

// oneLine joins the lines of s with " / ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " / ")), " ")
}

// TestAccuracyMarks: the marker lines have the stable form .ci/run
// collects, and reach the marks file.
func TestAccuracyMarks(t *testing.T) {
	path := t.TempDir() + "/marks"
	t.Setenv(accuracyMarksEnv, path)
	targetMissed(t, "TTFT p50", -6.25, 5, 10, " %")
	t.Run("skipped", func(t *testing.T) { accuracySkip(t, "mock steps ran late by p99 %d ms\nrerun", 12) })
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "TARGET MISSED TestAccuracyMarks TTFT_p50 -6.2 % target 5 % bound 10 %\n" +
		"ACCURACY SKIPPED TestAccuracyMarks/skipped: mock steps ran late by p99 12 ms / rerun\n"
	if string(b) != want {
		t.Errorf("marks file:\n%q\nwant\n%q", b, want)
	}
}
