package bench

import (
	"github.com/tracebench/tracebench/results"
)

// ErrorLimitMinResults is how many Results a run must have before its
// error rate can stop it: with fewer, one or two failures are already
// past a 5 % limit, so a stray early error would end the run.
const ErrorLimitMinResults = 20

// errorLimit watches a run's Results as they finish and asks to stop it
// once at least ErrorLimitMinResults are in and the share that failed
// exceeds max, so a failing fleet gets no more requests than that.
// Every Result counts, warm-up ones too. Not safe for concurrent use
// (a Run calls it from one goroutine).
type errorLimit struct {
	// max is the error rate allowed, in [0, 1].
	max float64
	// results and failed count the Results seen.
	results, failed int
	// tripped is the error rate when the limit stopped the run (0: not
	// stopped), and at the number of Results then.
	tripped float64
	at      int
}

// check counts r and returns results.StopErrorLimit when the run must stop.
func (e *errorLimit) check(r *results.Result) results.StopReason {
	e.results++
	if !r.OK() {
		e.failed++
	}
	if e.results < ErrorLimitMinResults || !(float64(e.failed) > e.max*float64(e.results)) {
		return ""
	}
	if e.at == 0 {
		e.tripped, e.at = float64(e.failed)/float64(e.results), e.results
	}
	return results.StopErrorLimit
}
