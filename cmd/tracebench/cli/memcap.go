package cli

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Heap cap of a single simulated replay (`replay --sim`): while its live
// data stays under memCapLive, the collector keeps the heap under
// memCapHeap instead of letting it grow to twice the live data (the
// default GOGC=100). A simulation's live data is mostly fixed-size state
// (the engines' block records and tables, a router's index), 60–66 MiB
// for the Mooncake hour on 8 long-context engines: the cap holds that
// run's peak RSS to about 96 MB instead of 130 MB, for little CPU (it
// allocates little). The default pacing comes back for the rest of the
// run once the live data passes memCapLive (a large fleet) or the
// collector has taken more than memCapGC of the CPU time (a run that
// allocates a lot), so the cap never makes the collector thrash. Setting
// GOMEMLIMIT turns the cap off.
const (
	memCapHeap = 80 << 20
	memCapLive = 72 << 20
	memCapGC   = 0.10
	// memCapJudge is the CPU time (s) the process must have used before
	// the collector's share is judged: start-up allocates in bursts.
	memCapJudge = 1.0
	memCapCheck = 200 * time.Millisecond
)

// capHeap applies the heap cap and returns the function that lifts it
// again (restoring the previous limit); both do nothing when GOMEMLIMIT
// is set.
func capHeap() (release func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(memCapHeap)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(memCapCheck)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if capOutgrown() {
				debug.SetMemoryLimit(prev)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		debug.SetMemoryLimit(prev)
	}
}

// capSamples are the runtime metrics capOutgrown reads.
var capSamples = []string{"/gc/heap/live:bytes", "/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/total:cpu-seconds"}

// capOutgrown reports whether the live heap passed memCapLive or the
// collector's share of the process's CPU time passed memCapGC (judged
// from memCapJudge of CPU time on).
func capOutgrown() bool {
	s := make([]metrics.Sample, len(capSamples))
	for i, n := range capSamples {
		s[i].Name = n
	}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > memCapLive {
		return true
	}
	if s[1].Value.Kind() != metrics.KindFloat64 || s[2].Value.Kind() != metrics.KindFloat64 {
		return false
	}
	gc, all := s[1].Value.Float64(), s[2].Value.Float64()
	return all >= memCapJudge && gc/all > memCapGC && !math.IsNaN(gc)
}
