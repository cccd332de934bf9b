package cli

import "testing"

// skipSlowUnderRace skips a long simulated experiment under -race: it
// runs the simulator on one goroutine, whose code the shorter tests
// already run under the detector, so -race only multiplies its time by
// about five (these five took 190 s of the package's 446 s under -race on
// the 2-core machine). CI's second pass, without -race, runs it.
func skipSlowUnderRace(t *testing.T) {
	t.Helper()
	if sweepRace {
		t.Skip("long simulated experiment: -race only slows it about 5× (one goroutine); run without -race (CI's second pass does)")
	}
}
