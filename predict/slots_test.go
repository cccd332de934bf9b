package predict

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// writeSlots writes one successful Result per slot in slots, request i
// reaching its first token at i seconds.
func writeSlots(t *testing.T, path string, slots []int) {
	t.Helper()
	var rs []*results.Result
	for i, s := range slots {
		r := &results.Result{Seq: int64(i), ID: string(rune('a' + i)), Status: 200, FirstToken: time.Duration(i+1) * time.Second}
		if s >= 0 {
			r.Slot = &s
		}
		rs = append(rs, r)
	}
	testfixtures.WriteResults(t, path, results.Header{Version: results.Version}, rs)
}

// TestCompareSlots: a slot choice agrees when the request followed the
// same request on its slot on both sides, whatever the slots' numbers.
func TestCompareSlots(t *testing.T) {
	cases := []struct {
		name      string
		live, sim []int
		n, same   int
	}{
		{"identical", []int{0, 1, 0, 1}, []int{0, 1, 0, 1}, 4, 4},
		{"slots numbered apart", []int{0, 1, 0, 1}, []int{3, 2, 3, 2}, 4, 4},
		{"one other choice", []int{0, 1, 0, 1}, []int{0, 1, 1, 0}, 4, 2},
		{"a side without a slot", []int{0, -1, 0, 1}, []int{0, 1, 0, 1}, 3, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			live, sim := filepath.Join(dir, "live.jsonl"), filepath.Join(dir, "sim.jsonl")
			writeSlots(t, live, tc.live)
			writeSlots(t, sim, tc.sim)
			a, err := CompareSlots(live, sim)
			if err != nil {
				t.Fatal(err)
			}
			if a.N != tc.n || a.Same != tc.same {
				t.Fatalf("%d of %d agree, want %d of %d", a.Same, a.N, tc.same, tc.n)
			}
		})
	}
}
