package policies

import "math"

// backendSet maps Backend.Index to the Backend's position in one pick's
// State.Backends. Generation stamps make loading O(len(backends)) with no
// clearing and no allocation once the arrays have grown to the largest
// Index seen.
type backendSet struct {
	pos []int32
	gen []uint32
	cur uint32
}

// load makes bs the current set.
func (s *backendSet) load(bs []Backend) {
	nextStamp(&s.cur, s.gen)
	for i, b := range bs {
		if b.Index < 0 {
			continue
		}
		if b.Index >= len(s.pos) {
			n := max(2*len(s.pos), b.Index+1, 8)
			s.pos = append(s.pos, make([]int32, n-len(s.pos))...)
			s.gen = append(s.gen, make([]uint32, n-len(s.gen))...)
		}
		s.pos[b.Index], s.gen[b.Index] = int32(i), s.cur
	}
}

// nextStamp advances the generation stamp *cur of stamps; when it wraps
// around to 0 it clears stamps, forgetting every old stamp, and starts
// again at 1.
func nextStamp(cur *uint32, stamps []uint32) {
	*cur++
	if *cur == 0 {
		clear(stamps)
		*cur = 1
	}
}

// lookup returns the position of the Backend with Index idx, if present.
func (s *backendSet) lookup(idx int) (int, bool) {
	if idx < 0 || idx >= len(s.pos) || s.gen[idx] != s.cur {
		return 0, false
	}
	return int(s.pos[idx]), true
}

// loadStats summarises the client in-flight requests of a set of Backends.
type loadStats struct {
	Min, Max, Total int
	// Mean is the arithmetic mean; StdDev the sample standard deviation
	// (n-1 in the denominator; 0 for fewer than two Backends).
	Mean, StdDev float64
}

// inFlightStats computes loadStats over bs in two passes, without
// allocating.
func inFlightStats(bs []Backend) loadStats {
	var s loadStats
	if len(bs) == 0 {
		return s
	}
	s.Min, s.Max = bs[0].InFlight, bs[0].InFlight
	for _, b := range bs {
		s.Min, s.Max = min(s.Min, b.InFlight), max(s.Max, b.InFlight)
		s.Total += b.InFlight
	}
	s.Mean = float64(s.Total) / float64(len(bs))
	if len(bs) < 2 {
		return s
	}
	var ss float64
	for _, b := range bs {
		d := float64(b.InFlight) - s.Mean
		ss += d * d
	}
	s.StdDev = math.Sqrt(ss / float64(len(bs)-1))
	return s
}
