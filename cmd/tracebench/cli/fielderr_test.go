package cli

import (
	"errors"
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
		{"ArrivalOptions.Rate NaN: want >= 0", "--rate NaN: want >= 0"},
		{"read trace t: ReadOptions.TimeUnit ms: fixed unit", "read trace t: --time-unit ms: fixed unit"},
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

// TestFlagWriter: a library log line written through flagWriter names
// flags, and the write reports the length it was given.
func TestFlagWriter(t *testing.T) {
	var b strings.Builder
	line := "calibrate probe: 4 slots (ProbeSpec.KeepConcurrency keeps the asked level)\n"
	n, err := flagWriter{&b, flagNames}.Write([]byte(line))
	want := "calibrate probe: 4 slots (--probe-max-concurrency keeps the asked level)\n"
	if err != nil || n != len(line) || b.String() != want {
		t.Errorf("wrote %q (%d, %v), want %q (%d)", b.String(), n, err, want, len(line))
	}
}
