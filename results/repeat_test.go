package results

import (
	"path/filepath"
	"testing"
)

// TestRepeatOf names the run a repeat repeats.
func TestRepeatOf(t *testing.T) {
	cases := []struct {
		path, want string
		ok         bool
	}{
		{filepath.Join("d", "probe-c1-again.jsonl"), filepath.Join("d", "probe-c1.jsonl"), true},
		{"probe-c1.jsonl", "", false},
		{"-again.jsonl", "", false},
		{"run-again", "run", true},
	}
	for _, tc := range cases {
		got, ok := RepeatOf(tc.path)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RepeatOf(%q) = %q, %v; want %q, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}
