package client

import (
	"time"

	"github.com/tracebench/tracebench/results"
)

// stallFactor is how many times the median gap a gap must be to be a
// Stall (4).
const stallFactor = 4

// stallEvery is how many gaps pass between updates of the running median
// that picks stall candidates, once that many have been seen (before,
// it is updated at every power of two).
const stallEvery = 32

// stalls picks stall candidates while a stream runs and keeps those
// that are stalls against the final median gap.
type stalls struct {
	cands  []results.Stall
	median time.Duration // running estimate; 0 before the first
	n      int           // gaps seen
}

// add sees the gap that began at at, against the estimate from the gaps
// before it; g holds every gap so far, this one included.
func (s *stalls) add(at, gap time.Duration, g gapBins) {
	if s.median == 0 || gap >= stallFactor*s.median {
		s.cands = append(s.cands, results.Stall{At: at, Gap: gap})
	}
	s.n++
	if s.n&(s.n-1) == 0 || s.n%stallEvery == 0 { // 1, 2, 4, …, then every stallEvery
		s.median = g.median()
	}
}

// final returns the candidates that are stalls against the median of g
// (nil when none).
func (s *stalls) final(g gapBins) []results.Stall {
	m := g.median()
	var out []results.Stall
	for _, c := range s.cands {
		if m > 0 && c.Gap >= stallFactor*m {
			out = append(out, c)
		}
	}
	return out
}

// median is the median gap of the bins (0 when empty).
func (g gapBins) median() time.Duration {
	var total int64
	for _, b := range g {
		total += b.N
	}
	var seen int64
	for _, b := range g {
		seen += b.N
		if 2*seen >= total {
			return time.Duration(b.V) * time.Microsecond
		}
	}
	return 0
}
