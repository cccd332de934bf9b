package policies

import (
	"math"
	"slices"
)

// BinRange is one multi-bin bin: predicted output lengths in [Lo, Hi)
// tokens.
type BinRange struct{ Lo, Hi int }

// EqualMassBoundaries is Algorithm 6 of the multi-bin specification: the K bins'
// edges are the floored i/K quantiles (i = 0..K) of the predicted output
// lengths, with linear interpolation between order statistics (numpy's
// default quantile), and the last bin ends at 10000. K = 1 gives
// [(0, 10000)]. It returns nil when lengths is empty or k < 1.
//
// For lengths 1..1000 and K = 4 the edges are 1, 250, 500, 750: bins
// [1,250) [250,500) [500,750) [750,10000).
func EqualMassBoundaries(lengths []int, k int) []BinRange {
	if k < 1 || len(lengths) == 0 {
		return nil
	}
	if k == 1 {
		return []BinRange{{0, mbLastBinHi}}
	}
	s := slices.Clone(lengths)
	slices.Sort(s)
	pts := make([]int, k+1)
	for i := range pts {
		pts[i] = int(math.Floor(quantileLinear(s, float64(i)/float64(k))))
	}
	out := make([]BinRange, k)
	for i := range out {
		out[i] = BinRange{Lo: pts[i], Hi: pts[i+1]}
	}
	out[k-1].Hi = mbLastBinHi
	return out
}

// quantileLinear is the q-quantile of sorted s: position q·(n−1),
// interpolated linearly between its neighbours.
func quantileLinear(s []int, q float64) float64 {
	pos := q * float64(len(s)-1)
	i := int(math.Floor(pos))
	if i >= len(s)-1 {
		return float64(s[len(s)-1])
	}
	f := pos - float64(i)
	return float64(s[i]) + f*float64(s[i+1]-s[i])
}

// boundariesFromEdges turns K−1 strictly increasing cut points into K bins
// [0, e₁) [e₁, e₂) … [e_{K−1}, 10000); no cuts gives one bin [0, 10000).
func boundariesFromEdges(edges []int) []BinRange {
	out := make([]BinRange, 0, len(edges)+1)
	lo := 0
	for _, e := range edges {
		out = append(out, BinRange{Lo: lo, Hi: e})
		lo = e
	}
	return append(out, BinRange{Lo: lo, Hi: max(mbLastBinHi, lo+1)})
}

// binOf is Algorithm 4: the first bin with Lo ≤ length < Hi; lengths past
// every bin go to the last bin (the specification's fallback). A length below the
// first bin's Lo (a warm-up window's minimum was larger) goes to bin 0:
// the specification's fallback would put the shortest Requests in the longest bin,
// which it does not intend.
func binOf(length int, bounds []BinRange) int {
	if len(bounds) == 0 {
		return 0
	}
	if length < bounds[0].Lo {
		return 0
	}
	for i, b := range bounds {
		if b.Lo <= length && length < b.Hi {
			return i
		}
	}
	return len(bounds) - 1
}

// binSelector is Algorithm 5's bin choice: round-robin (from the cursor,
// the first non-empty bin; the cursor moves past it) or longest-queue
// (the first bin of greatest length).
type binSelector struct {
	longest bool
	cursor  int
}

// pick returns the bin to serve among bins with lengths lens, or -1 when
// all are empty. With commit false the cursor does not move.
func (s *binSelector) pick(lens []int, commit bool) int {
	k := len(lens)
	if s.longest {
		best := -1
		for i, n := range lens {
			if n > 0 && (best < 0 || n > lens[best]) {
				best = i
			}
		}
		return best
	}
	for off := range k {
		i := (s.cursor + off) % k
		if lens[i] > 0 {
			if commit {
				s.cursor = (i + 1) % k
			}
			return i
		}
	}
	return -1
}
