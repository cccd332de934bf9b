//go:build !race

package mockserver

// raceEnabled reports a -race build.
const raceEnabled = false
