package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/calibrate"
	"github.com/tracebench/tracebench/predict"
	"github.com/tracebench/tracebench/probe"
	"github.com/tracebench/tracebench/traces"
)

// cliSpecs are the library's Spec types the command line fills, by the
// name the field paths of their errors start with.
var cliSpecs = map[string]reflect.Type{
	"Spec":           reflect.TypeOf(bench.Spec{}),
	"CompareSpec":    reflect.TypeOf(bench.CompareSpec{}),
	"DecideSpec":     reflect.TypeOf(bench.DecideSpec{}),
	"SweepSpec":      reflect.TypeOf(bench.SweepSpec{}),
	"PredictSpec":    reflect.TypeOf(predict.Spec{}),
	"PredictDirSpec": reflect.TypeOf(predict.DirSpec{}),
	"ProbeSpec":      reflect.TypeOf(probe.Spec{}),
	"MockFleet":      reflect.TypeOf(bench.MockFleet{}),
	// The traces options inside them, which the traces package's errors
	// name.
	"ReadOptions":    reflect.TypeOf(traces.ReadOptions{}),
	"ArrivalOptions": reflect.TypeOf(traces.ArrivalOptions{}),
	"AgenticOptions": reflect.TypeOf(traces.AgenticOptions{}),
	// calibrate's options, which its errors and predict's name.
	"CalibrateOptions": reflect.TypeOf(calibrate.Options{}),
}

// notFromFlags are the field paths the library's errors name that no
// flag sets: the command line fills them itself, with values the
// library accepts, so their errors cannot reach a user.
var notFromFlags = []string{
	"DecideSpec.Baseline",     // left empty: the first router
	"DecideSpec.ConfirmSeeds", // left 0: the library's default
	"DecideSpec.Leaders",      // 0 (the library's default), or 1 with --quick
	"DecideSpec.Sim",          // the CLI's stage-1 setup
}

// resolveField reports whether path ("Spec.Workload.Rate") names a field
// of the cliSpecs type its first element names, through nested structs
// and pointers to them.
func resolveField(path string) bool {
	parts := strings.Split(path, ".")
	t, ok := cliSpecs[parts[0]]
	for _, name := range parts[1:] {
		for ok && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !ok || t.Kind() != reflect.Struct {
			return false
		}
		var f reflect.StructField
		f, ok = t.FieldByName(name)
		t = f.Type
	}
	return ok
}

// flagTableOf is the table that maps path to a flag: the in-process
// fleet's or `tracebench mock`'s for MockFleet paths (both must hold
// it), flagNames for the rest.
func flagsFor(path string) []map[string]string {
	if strings.HasPrefix(path, "MockFleet.") {
		return []map[string]string{mockFlagNames}
	}
	return []map[string]string{flagNames}
}

// TestFieldPathSeesEverySpec: the rewrite's pattern matches a path of
// every Spec type the command line fills, so none passes through as a
// Go name.
func TestFieldPathSeesEverySpec(t *testing.T) {
	for name, typ := range cliSpecs {
		f := typ.Field(0)
		path := name + "." + f.Name
		if got := fieldPath.FindString("x " + path + " y"); got != path {
			t.Errorf("fieldPath finds %q in a message naming %s, want the whole path", got, path)
		}
	}
}

// TestEveryLibraryFieldHasAFlag: every field path the bench and traces
// packages' code (not their comments) names is a field of a Spec type the command line fills,
// and has a flag in the CLI's tables (or is one no flag sets), so no
// message of the command line names a Go field.
func TestEveryLibraryFieldHasAFlag(t *testing.T) {
	var files []string
	for _, pkg := range []string{"bench", "traces", "calibrate", "predict"} {
		fs, err := filepath.Glob(filepath.Join("..", "..", "..", pkg, "*.go"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("%s sources: %v (%d files)", pkg, err, len(fs))
		}
		files = append(files, fs...)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range cliSpecs {
			if !yield(n) {
				return
			}
		}
	})
	path := regexp.MustCompile(`\b(?:` + strings.Join(names, "|") + `)(?:\.[A-Z][A-Za-z0-9]*)+`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "// ")
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue // doc comments name fields and methods freely
			}
			for _, at := range path.FindAllStringIndex(code, -1) {
				seen++
				p := code[at[0]:at[1]]
				if strings.HasPrefix(code[at[1]:], `." +`) && p == "Spec.Policy" {
					continue // "Spec.Policy." + field: TestEveryPolicyFieldHasAFlag
				}
				checkFieldHasFlag(t, filepath.Base(f), p)
			}
		}
	}
	if seen < 60 {
		t.Errorf("only %d field paths found in the bench and traces packages", seen)
	}
}

// TestEveryPolicyFieldHasAFlag: bench builds "Spec.Policy."+field paths
// at run time, out of the literal scan's sight; every Policy field has a
// flag.
func TestEveryPolicyFieldHasAFlag(t *testing.T) {
	pol := reflect.TypeOf(bench.Policy{})
	for i := range pol.NumField() {
		if f := pol.Field(i); f.IsExported() {
			checkFieldHasFlag(t, "Policy", "Spec.Policy."+f.Name)
		}
	}
}

// checkFieldHasFlag fails t unless path is a real field with a flag, or
// one no flag sets.
func checkFieldHasFlag(t *testing.T, where, path string) {
	t.Helper()
	if !resolveField(path) {
		t.Errorf("%s: %s names no field of the Spec types", where, path)
	}
	if slices.Contains(notFromFlags, path) {
		return
	}
	for _, table := range flagsFor(path) {
		if _, ok := table[path]; !ok {
			t.Errorf("%s: field %s has no flag", where, path)
		}
	}
}
