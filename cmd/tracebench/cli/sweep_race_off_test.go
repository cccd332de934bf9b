//go:build !race

package cli

// sweepRace reports a -race build (see sweep_race_on_test.go).
const sweepRace = false
