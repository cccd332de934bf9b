package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestCapHeap: the cap sets the memory limit unless GOMEMLIMIT is set.
func TestCapHeap(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	for _, tc := range []struct {
		name, env string
		want      bool
		limit     int64
	}{
		{"default", "", true, memCapHeap},
		{"GOMEMLIMIT set", "1GiB", false, math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.env)
			debug.SetMemoryLimit(math.MaxInt64)
			done := make(chan struct{})
			defer close(done)
			if got := capHeap(done); got != tc.want {
				t.Fatalf("capHeap = %v, want %v", got, tc.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tc.limit {
				t.Errorf("memory limit %d, want %d", got, tc.limit)
			}
		})
	}
}
