package metrics

import (
	"encoding/json"
	"fmt"
	"time"
)

// initialBucket is the first width of a time series bucket; the width
// doubles whenever the Run outgrows the bucket limit.
const initialBucket = 250 * time.Millisecond

// series sums values into time buckets from the start of the Run. When a
// value falls past the last allowed bucket, adjacent buckets are merged in
// pairs and the width doubles, so a series never holds more than max
// buckets however long the Run is.
type series struct {
	width time.Duration
	max   int
	sum   []float64
	cnt   []float64 // nil unless means are wanted
}

func newSeries(max int, means bool) *series {
	s := &series{width: initialBucket, max: max}
	if means {
		s.cnt = []float64{}
	}
	return s
}

// fit makes room for offset at, halving the resolution as needed, and
// returns its bucket index (negative offsets fall into bucket 0).
func (s *series) fit(at time.Duration) int {
	if at < 0 {
		at = 0
	}
	for int(at/s.width) >= s.max {
		s.halve()
	}
	i := int(at / s.width)
	for len(s.sum) <= i {
		s.sum = append(s.sum, 0)
		if s.cnt != nil {
			s.cnt = append(s.cnt, 0)
		}
	}
	return i
}

func (s *series) halve() {
	s.width *= 2
	s.sum = pairSums(s.sum)
	if s.cnt != nil {
		s.cnt = pairSums(s.cnt)
	}
}

func pairSums(v []float64) []float64 {
	out := v[:0:0]
	for i := 0; i < len(v); i += 2 {
		x := v[i]
		if i+1 < len(v) {
			x += v[i+1]
		}
		out = append(out, x)
	}
	return out
}

// cover adds empty buckets up to the one holding end (a Run's last
// completion, which the completions series counts there), halving the
// resolution as needed.
func (s *series) cover(end time.Duration) {
	if end > 0 {
		s.fit(end)
	}
}

// add adds v to the bucket holding at.
func (s *series) add(at time.Duration, v float64) {
	i := s.fit(at)
	s.sum[i] += v
	if s.cnt != nil {
		s.cnt[i]++
	}
}

// spread adds v spread uniformly over [from, to): each bucket gets the
// share of v that overlaps it. With v = (to − from) in seconds the bucket
// sums become time integrals (e.g. of requests in flight).
func (s *series) spread(from, to time.Duration, v float64) {
	if from < 0 {
		from = 0
	}
	if to <= from {
		s.add(from, v)
		return
	}
	s.fit(to - 1)
	total := float64(to - from)
	for i := int(from / s.width); i <= int((to-1)/s.width); i++ {
		lo, hi := max(from, time.Duration(i)*s.width), min(to, time.Duration(i+1)*s.width)
		s.sum[i] += v * float64(hi-lo) / total
	}
}

// Point is one time-series sample, written to JSON as [t_s, value].
type Point struct {
	// At is the bucket's start in seconds from the start of the Run.
	At float64 `json:"t_s"`
	// Value is the bucket's figure (unit given by the series).
	Value float64 `json:"v"`
}

// MarshalJSON writes a Point as [t_s, value].
func (p Point) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]float64{p.At, p.Value})
}

// UnmarshalJSON reads a Point written by MarshalJSON.
func (p *Point) UnmarshalJSON(b []byte) error {
	var v [2]float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("time-series point: %w", err)
	}
	p.At, p.Value = v[0], v[1]
	return nil
}

// rates returns each bucket's sum divided by the bucket width in seconds
// (a per-second rate, or the mean level of a time integral).
func (s *series) rates() []Point {
	w := s.width.Seconds()
	out := make([]Point, len(s.sum))
	for i, v := range s.sum {
		out[i] = Point{At: float64(i) * w, Value: v / w}
	}
	return out
}

// means returns each non-empty bucket's mean value.
func (s *series) means() []Point {
	var out []Point
	for i, v := range s.sum {
		if s.cnt != nil && s.cnt[i] > 0 {
			out = append(out, Point{At: float64(i) * s.width.Seconds(), Value: v / s.cnt[i]})
		}
	}
	return out
}

// cumulative returns the running total at the end of each bucket.
func (s *series) cumulative() []Point {
	out := make([]Point, len(s.sum))
	var acc float64
	for i, v := range s.sum {
		acc += v
		out[i] = Point{At: float64(i+1) * s.width.Seconds(), Value: acc}
	}
	return out
}

// clone returns an independent copy of s.
func (s *series) clone() *series {
	c := *s
	c.sum = append([]float64(nil), s.sum...)
	if s.cnt != nil {
		c.cnt = append([]float64{}, s.cnt...)
	}
	return &c
}
