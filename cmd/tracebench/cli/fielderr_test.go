package cli

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/bench"
)

// TestFlagErr: a library error's field paths become flags, the error
// stays a usage error, and paths without a flag stay as they are.
func TestFlagErr(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"Spec.Workload.Shard \"2/2\": want i/n", "--shard \"2/2\": want i/n"},
		{"Spec.Policy.Filter x cannot compose with Spec.Policy.Queue y", "--filter x cannot compose with --queue y"},
		{"Spec.Policy.FilterArgs given without Spec.Policy.Filter", "--filter-param given without --filter"},
		{"Spec.Nothing.Here: kept", "Spec.Nothing.Here: kept"},
	} {
		err := flagErr(bench.UsageError{Field: "x", Err: errors.New(tc.in)}, flagNames)
		var ue bench.UsageError
		if err.Error() != tc.want || !errors.As(err, &ue) {
			t.Errorf("%q: got %q (usage %v), want %q", tc.in, err, errors.As(err, &ue), tc.want)
		}
	}
	if flagErr(nil, flagNames) != nil {
		t.Error("nil error rewritten")
	}
}

// TestEveryLibraryFieldHasAFlag: every field path the bench package
// names in a usage error has a flag in the CLI's tables, so no message
// of the command line names a Go field.
func TestEveryLibraryFieldHasAFlag(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "bench", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("bench sources: %v (%d files)", err, len(files))
	}
	lit := regexp.MustCompile(`"((?:Spec|CompareSpec|SweepSpec|MockFleet)(?:\.[A-Z][A-Za-z0-9]*)+)[" :]`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			seen++
			p := m[1]
			table := flagNames
			if strings.HasPrefix(p, "MockFleet.") {
				table = mockFlagNames
			}
			if _, ok := table[p]; !ok {
				t.Errorf("%s: field %s has no flag", filepath.Base(f), p)
			}
		}
	}
	if seen < 20 {
		t.Errorf("only %d field paths found in the bench package", seen)
	}
}
