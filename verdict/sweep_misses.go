package verdict

import (
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// Misses counts, over the measured window of one Run, the requests that
// failed and the successful ones that missed each SLO bound. A request
// over several bounds counts under each, so the counts may add up to
// more than the requests that missed the SLA.
type Misses struct {
	// Requests is the number of requests in the window.
	Requests int64 `json:"requests"`
	// Errors counts failed requests.
	Errors int64 `json:"errors"`
	// TTFT, TPOT and E2E count successful requests over that bound
	// (a request with no first token counts as over the TTFT bound).
	TTFT int64 `json:"ttft"`
	TPOT int64 `json:"tpot"`
	E2E  int64 `json:"e2e"`
	// TTFOT counts successful requests over the time-to-first-output
	// bound (a request with no output token counts as over it).
	TTFOT int64 `json:"ttfot,omitempty"`
}

// Add counts r under the bounds of o.SLO that apply to its user; a
// Result whose intended arrival falls before o.Warmup is left out, as in
// the Accumulator.
func (m *Misses) Add(o metrics.Options, r *results.Result) {
	if r.Intended < o.Warmup {
		return
	}
	m.Requests++
	if !r.OK() {
		m.Errors++
		return
	}
	s := o.SLO.For(r.User)
	if s.TTFT > 0 && (r.FirstToken == 0 || r.TTFT() > s.TTFT) {
		m.TTFT++
	}
	if s.TTFOT > 0 && (r.FirstOutput == 0 || r.TTFOT() > s.TTFOT) {
		m.TTFOT++
	}
	if s.TPOT > 0 && r.TPOT() > s.TPOT {
		m.TPOT++
	}
	if s.E2E > 0 && r.E2E() > s.E2E {
		m.E2E++
	}
}

// Cause returns what most requests failed on, "errors", "TTFT",
// "TTFOT", "TPOT" or "E2E", with its count; ties go to that order. It is "" with 0 when
// every request met every bound.
func (m Misses) Cause() (string, int64) {
	cause, n := "", int64(0)
	for _, c := range []struct {
		name string
		n    int64
	}{{"errors", m.Errors}, {"TTFT", m.TTFT}, {"TTFOT", m.TTFOT}, {"TPOT", m.TPOT}, {"E2E", m.E2E}} {
		if c.n > n {
			cause, n = c.name, c.n
		}
	}
	return cause, n
}

// CountMisses reads the results file at path and counts its misses
// under o (its SLO and warm-up). A file cut off mid-line is read up to
// the cut.
func CountMisses(path string, o metrics.Options) (Misses, error) {
	var m Misses
	err := results.EachResult(path, nil, func(r *results.Result) error {
		m.Add(o, r)
		return nil
	})
	return m, err
}
