package replay

import (
	"time"

	"github.com/tracebench/tracebench/results"
)

// RateMeter compares the requested arrival rate (from intended times) with
// the achieved send rate (from sent times) over the Requests sent.
type RateMeter struct {
	n                  int64
	firstInt, lastInt  time.Duration
	firstSent, lastSnt time.Duration
}

// Add counts one sent Result.
func (m *RateMeter) Add(r *results.Result) {
	if r.Backend < 0 || r.Sent == 0 && r.Intended != 0 {
		return
	}
	if m.n == 0 {
		m.firstInt, m.lastInt, m.firstSent, m.lastSnt = r.Intended, r.Intended, r.Sent, r.Sent
	}
	m.n++
	m.firstInt, m.lastInt = min(m.firstInt, r.Intended), max(m.lastInt, r.Intended)
	m.firstSent, m.lastSnt = min(m.firstSent, r.Sent), max(m.lastSnt, r.Sent)
}

// Extra returns requested_rate and achieved_rate in req/s (nil with fewer
// than two Requests or a zero span).
func (m *RateMeter) Extra() map[string]float64 {
	iv, sv := m.lastInt-m.firstInt, m.lastSnt-m.firstSent
	if m.n < 2 || iv <= 0 || sv <= 0 {
		return nil
	}
	k := float64(m.n - 1)
	return map[string]float64{results.ExtraRequestedRate: k / iv.Seconds(), results.ExtraAchievedRate: k / sv.Seconds()}
}

// MergeExtra adds b's entries to a (allocating a when nil).
func MergeExtra(a, b map[string]float64) map[string]float64 {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]float64{}
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}
