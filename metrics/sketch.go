package metrics

import (
	"math"
	"slices"
	"time"
)

// sketchGamma is the bucket ratio of a sketch: values within one bucket
// differ by at most 2 %, so a quantile is within 1 % of the exact value
// (the DDSketch construction of Masson et al., VLDB 2019).
const sketchGamma = 1.02

var logGamma = math.Log(sketchGamma)

// sketch is a sparse, mergeable log-bucket histogram of microsecond
// values. It costs memory per distinct bucket, not per value, which keeps
// per-user and per-Backend latency summaries small when there are
// thousands of users.
type sketch struct {
	counts map[int32]int64
	n      int64
}

// add records one duration.
func (s *sketch) add(d time.Duration) {
	if s.counts == nil {
		s.counts = map[int32]int64{}
	}
	s.counts[sketchIndex(float64(d)/float64(time.Microsecond))]++
	s.n++
}

func sketchIndex(us float64) int32 {
	if us <= 1 {
		return 0
	}
	return int32(math.Ceil(math.Log(us) / logGamma))
}

// quantile returns the q-quantile (q in [0, 1]) in milliseconds: the
// midpoint of the bucket holding the value of rank ceil(q·n).
func (s *sketch) quantile(q float64) float64 {
	if s.n == 0 {
		return 0
	}
	keys := make([]int32, 0, len(s.counts))
	for k := range s.counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	rank := int64(math.Ceil(q * float64(s.n)))
	if rank < 1 {
		rank = 1
	}
	var seen int64
	for _, k := range keys {
		seen += s.counts[k]
		if seen >= rank {
			return bucketValue(k) / 1e3
		}
	}
	return bucketValue(keys[len(keys)-1]) / 1e3
}

// bucketValue is the value (µs) that represents bucket k: 2γ^k/(γ+1), the
// point with equal relative distance to both bucket ends.
func bucketValue(k int32) float64 {
	if k == 0 {
		return 1
	}
	return 2 * math.Pow(sketchGamma, float64(k)) / (sketchGamma + 1)
}
