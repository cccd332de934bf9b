//go:build race

package mockserver

// raceEnabled reports a -race build; load tests skip under it, since the
// race detector's slowdown, not the mock, would shape their timings.
const raceEnabled = true
