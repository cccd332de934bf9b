package client

import (
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

// TestStalls: a gap of at least 4 times the median is kept with when it
// began; the other gaps are not, however many there are.
func TestStalls(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		gaps []time.Duration
		want []results.Stall
	}{
		{"steady", repeat(10*ms, 50), nil},
		{"one stall", append(append(repeat(10*ms, 40), 500*ms), repeat(10*ms, 40)...), []results.Stall{{At: 400 * ms, Gap: 500 * ms}}},
		{"first gap a stall", append([]time.Duration{300 * ms}, repeat(10*ms, 40)...), []results.Stall{{At: 0, Gap: 300 * ms}}},
		{"below 4×", append(repeat(10*ms, 40), 39*ms), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g gapBins
			var s stalls
			var at time.Duration
			for _, gap := range tc.gaps {
				g.add(gap)
				s.add(at, gap, g)
				at += gap
			}
			got := s.final(g)
			if len(got) != len(tc.want) {
				t.Fatalf("stalls %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("stalls %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// repeat returns n copies of d.
func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
