package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// startedField is the header's wall-clock start, the one field of a
// simulated run's results file that may differ between runs.
var startedField = regexp.MustCompile(`"started":"[^"]*"`)

// TestSimReplayDeterministic runs `tracebench replay --sim 4` twice with
// the same seed, for a load-aware router under a fairness queue and a
// prefix-aware router under the multi-bin queue, and requires the two
// results files to be byte-identical apart from the header's start time;
// a different seed must change them.
func TestSimReplayDeterministic(t *testing.T) {
	for _, policy := range [][]string{{"--policy", "least-request", "--queue", "vtc"},
		{"--policy", "prefix-cache", "--queue", "multi-bin"}} {
		t.Run(policy[1]+"+"+policy[3], func(t *testing.T) {
			dir := t.TempDir()
			run := func(name, seed string) []byte {
				path := filepath.Join(dir, name)
				args := slices.Concat([]string{"replay", "--sim", "4", "--workload", "mixed", "-p", "requests=300",
					"--seed", seed, "--out", path}, policy)
				var stdout, stderr bytes.Buffer
				if code := Run(args, &stdout, &stderr); code != ExitOK {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return startedField.ReplaceAll(b, []byte(`"started":""`))
			}
			a, b, other := run("a.jsonl", "7"), run("b.jsonl", "7"), run("c.jsonl", "8")
			if n := bytes.Count(a, []byte("\n")); n < 302 {
				t.Fatalf("%d lines, want a header, 300 results and a stop line", n)
			}
			if !bytes.Equal(a, b) {
				t.Error("two simulations with the same seed wrote different results files")
			}
			if bytes.Equal(a, other) {
				t.Error("seeds 7 and 8 wrote the same results file: the seed is not used")
			}
		})
	}
}
