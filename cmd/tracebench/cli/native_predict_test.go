package cli

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// slotCheck reads predict's slot check: requests whose slot had served
// the same request before them on both sides, and requests compared.
var slotCheck = regexp.MustCompile(`slot check: the simulated engines put (\d+) of the (\d+) requests`)

// TestPredictSlotsOnMock records a run against the mock answering as
// llama.cpp with --api native (every result names its slot), predicts it
// with the mock's own profile, and reads predict's slot check: the
// simulated engines are the mock's, so at light load they make the same
// choice (a slot that served the same request before) for at least 80 %
// of the requests (40 of 40 in a run; a release the real-time mock's
// jitter puts in the other order moves the least recently used slot).
// A slot choice that ignored the shared prefixes would land far lower.
func TestPredictSlotsOnMock(t *testing.T) {
	prof := slotsProfile(t)
	dir := t.TempDir()
	live := filepath.Join(dir, "live.jsonl")
	code, _, stderr := runCLI(t, "replay", "--mock", "1", "--mock-profile", prof, "--dialect", "llamacpp", "--api", "native",
		"--workload", "shared-prefix", "--workload-param", "requests=40", "--workload-param", "output_len=16", "--rate", "10", "--seed", "3", "--out", live)
	if code != ExitOK {
		t.Fatalf("replay exit %d: %s", code, stderr)
	}
	code, so, se := runCLI(t, "predict", live, "--profile", prof, "--out", filepath.Join(dir, "pred"))
	if code != ExitOK {
		t.Fatalf("predict exit %d: %s", code, se)
	}
	m := slotCheck.FindStringSubmatch(so)
	if m == nil {
		t.Fatalf("predict printed no slot check:\n%s", so)
	}
	same, n := atoi(t, m[1]), atoi(t, m[2])
	t.Logf("slot check: %d of %d made the mock's choice", same, n)
	if n < 30 || float64(same) < 0.8*float64(n) {
		t.Errorf("the simulation made the mock's slot choice for %d of %d requests, want at least 80 %% of 30 or more:\n%s", same, n, so)
	}
}

// atoi parses a decimal the test read from output.
func atoi(t *testing.T, s string) int {
	t.Helper()
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
