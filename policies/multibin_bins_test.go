package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEqualMassBoundariesAlgorithm6(t *testing.T) {
	seq := func(lo, hi int) []int {
		var out []int
		for i := lo; i <= hi; i++ {
			out = append(out, i)
		}
		return out
	}
	tests := []struct {
		name    string
		lengths []int
		k       int
		want    []BinRange
	}{
		// quantiles at positions 0, 249.75, 499.5, 749.25, 999 of 1..1000:
		// 1, 250.75, 500.5, 750.25, 1000, floored
		{"1..1000 in 4", seq(1, 1000), 4, []BinRange{{1, 250}, {250, 500}, {500, 750}, {750, 10000}}},
		// position 1.5 of {10,20,30,40}: 20 + 0.5·10 = 25
		{"interpolated median", []int{40, 10, 30, 20}, 2, []BinRange{{10, 25}, {25, 10000}}},
		// 1..20 in 2: position 9.5 → 10.5 → 10; the seed's floor makes bins of 9 and 11
		{"1..20 in 2", seq(1, 20), 2, []BinRange{{1, 10}, {10, 10000}}},
		// positions 4.75, 9.5, 14.25 → 5.75, 10.5, 15.25 → 5, 10, 15
		{"1..20 in 4", seq(1, 20), 4, []BinRange{{1, 5}, {5, 10}, {10, 15}, {15, 10000}}},
		{"k 1 is one wide bin", seq(1, 5), 1, []BinRange{{0, 10000}}},
		// ties give an empty bin, as the seed does
		{"ties", []int{1, 2}, 2, []BinRange{{1, 1}, {1, 10000}}},
		{"no lengths", nil, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, EqualMassBoundaries(tc.lengths, tc.k)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestBinOfAlgorithm4(t *testing.T) {
	bounds := []BinRange{{1, 42}, {42, 80}, {80, 167}, {167, 10000}} // the seed's example
	tests := []struct {
		length, want int
	}{
		{1, 0}, {41, 0}, {42, 1}, {79, 1}, {80, 2}, {166, 2}, {167, 3}, {9999, 3},
		{20000, 3}, // past every bin: the seed's fallback to the last bin
		{0, 0},     // below the first edge: bin 0 (documented deviation)
	}
	for _, tc := range tests {
		if got := binOf(tc.length, bounds); got != tc.want {
			t.Errorf("binOf(%d) = %d, want %d", tc.length, got, tc.want)
		}
	}
	if got := boundariesFromEdges([]int{42, 80, 167}); !cmp.Equal(got, []BinRange{{0, 42}, {42, 80}, {80, 167}, {167, 10000}}) {
		t.Errorf("boundariesFromEdges = %v", got)
	}
}

func TestBinSelectorAlgorithm5(t *testing.T) {
	rr := binSelector{}
	lens := []int{0, 3, 0, 2}
	var got []int
	got = append(got, rr.pick(lens, false)) // peek: 1, cursor stays 0
	got = append(got, rr.pick(lens, true))  // 1, cursor → 2
	got = append(got, rr.pick(lens, true))  // 2 is empty → 3, cursor → 0
	got = append(got, rr.pick(lens, true))  // 0 is empty → 1
	got = append(got, rr.pick([]int{0, 0, 0, 0}, true))
	if d := cmp.Diff([]int{1, 1, 3, 1, -1}, got); d != "" {
		t.Errorf("round-robin (-want +got):\n%s", d)
	}
	lq := binSelector{longest: true}
	got = []int{lq.pick([]int{2, 5, 5, 1}, true), lq.pick([]int{0, 0}, true), lq.pick([]int{0, 1}, true)}
	if d := cmp.Diff([]int{1, -1, 1}, got); d != "" {
		t.Errorf("longest-queue (first of the longest) (-want +got):\n%s", d)
	}
}
