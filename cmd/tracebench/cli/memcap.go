package cli

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Heap cap of the tracebench process: while its live data stays under
// memCapLive, the collector keeps the heap under memCapHeap instead of
// letting it grow to twice the live data (the default GOGC=100). A
// simulation's live data is mostly fixed-size state (the engines' block
// records and tables, a router's index), about 60 MiB for the Mooncake
// hour on 8 long-context engines: the cap holds that run's peak RSS to
// about 96 MB instead of 130 MB, for the same CPU time (it allocates
// little). A run whose live data passes memCapLive gets the default
// pacing back, so a large fleet never makes the collector thrash. Setting
// GOMEMLIMIT turns the cap off.
const (
	memCapHeap  = 80 << 20
	memCapLive  = 64 << 20
	memCapCheck = 200 * time.Millisecond
)

// capHeap applies the heap cap until done is closed (nil: for the life
// of the process); it reports whether it did (not when GOMEMLIMIT is set).
func capHeap(done <-chan struct{}) bool {
	if os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetMemoryLimit(memCapHeap)
	go func() {
		t := time.NewTicker(memCapCheck)
		defer t.Stop()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > memCapLive {
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
		}
	}()
	return true
}
