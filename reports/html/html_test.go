package html

import (
	"math"
	"testing"
)

func TestSortKeys(t *testing.T) {
	for _, tc := range []struct {
		cell Cell
		want string
	}{
		{NumCell("1.5", 1.5), "1.5"},
		{NumCell("n/a", math.NaN()), ""},
		{NumCell("inf", math.Inf(1)), ""},
		{NumCell("0", 0), "0"},
		{NumCell("1e-7", 1e-7), "1e-07"},
	} {
		if got := sortKey(tc.cell); got != tc.want {
			t.Errorf("sortKey(%v) = %q, want %q", tc.cell.Key, got, tc.want)
		}
	}
}
