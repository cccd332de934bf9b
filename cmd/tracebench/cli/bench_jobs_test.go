package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/policies"
)

// TestBenchDefaultPoliciesAreTheRegistry: bench with no --policies
// compares every registered router, not a fixed subset.
func TestBenchDefaultPoliciesAreTheRegistry(t *testing.T) {
	got, err := benchPolicies("", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := policies.Names(policies.KindRouter); !slices.Equal(got, want) || len(got) < 11 {
		t.Errorf("default policies %v, want the registry's %v", got, want)
	}
	if _, err := benchPolicies("random,no-such-router", false); err == nil || !strings.Contains(err.Error(), "no-such-router") {
		t.Errorf("unknown router: error %v", err)
	}
}

// TestBenchSimJobsMatchSerial: bench --sim with runs side by side writes
// the same results files, byte for byte apart from the header's
// wall-clock start, as one run at a time.
func TestBenchSimJobsMatchSerial(t *testing.T) {
	names := []string{"random", "least-request", "prefix-cache", "vtc-basic"}
	files := map[string]map[string][]byte{}
	for _, jobs := range []string{"1", "4"} {
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		code := Run([]string{"bench", "--sim", "2", "--policies", strings.Join(names, ","), "--jobs", jobs,
			"--max-requests", "120", "--rate", "20", "--out", dir}, &stdout, &stderr)
		if code != ExitOK {
			t.Fatalf("--jobs %s: exit %d; stderr:\n%s", jobs, code, stderr.String())
		}
		files[jobs] = map[string][]byte{}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, "results-"+n+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			files[jobs][n] = startedField.ReplaceAll(b, []byte(`"started":""`))
		}
	}
	for _, n := range names {
		if !bytes.Equal(files["1"][n], files["4"][n]) {
			t.Errorf("%s: results differ between --jobs 1 and --jobs 4", n)
		}
	}
}
