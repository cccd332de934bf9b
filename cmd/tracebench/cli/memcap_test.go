package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestCapHeap: the cap sets the memory limit unless GOMEMLIMIT is set,
// and releasing it restores the previous limit.
func TestCapHeap(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		limit     int64
	}{
		{"default", "", memCapHeap},
		{"GOMEMLIMIT set", "1GiB", math.MaxInt64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", tc.env)
			prev := debug.SetMemoryLimit(math.MaxInt64)
			defer debug.SetMemoryLimit(prev)
			release := capHeap()
			if got := debug.SetMemoryLimit(-1); got != tc.limit {
				t.Errorf("memory limit %d, want %d", got, tc.limit)
			}
			release()
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Errorf("memory limit after release %d, want %d", got, int64(math.MaxInt64))
			}
		})
	}
}
