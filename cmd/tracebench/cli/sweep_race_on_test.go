//go:build race

package cli

// sweepRace reports a -race build: the long virtual-time sweep
// comparisons skip under it (the simulator runs on one goroutine, so the
// detector only multiplies their run time by about five).
const sweepRace = true
