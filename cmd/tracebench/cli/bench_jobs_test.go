package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/reports"
)

// TestBenchDefaultPoliciesAreTheRegistry: bench with no --policies
// compares every registered router, not a fixed subset.
func TestBenchDefaultPoliciesAreTheRegistry(t *testing.T) {
	got, err := benchPolicies("", false)
	if err != nil {
		t.Fatal(err)
	}
	if want := policies.Names("router"); !slices.Equal(got, want) || len(got) < 11 {
		t.Errorf("default policies %v, want the registry's %v", got, want)
	}
	if _, err := benchPolicies("random,no-such-router", false); err == nil || !strings.Contains(err.Error(), "no-such-router") {
		t.Errorf("unknown router: error %v", err)
	}
}

// TestBenchJobs: automatic --jobs is every policy on mock fleets,
// GOMAXPROCS for --sim and one for --target; an explicit value wins but
// never exceeds the policies.
func TestBenchJobs(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    benchOptions
		want int
	}{
		{"mock", benchOptions{}, 11},
		{"target", benchOptions{targets: []string{"http://127.0.0.1:1"}}, 1},
		{"sim", benchOptions{mf: fleetFlags{Sim: 2}}, min(11, runtimeProcs())},
		{"explicit", benchOptions{jobs: 3}, 3},
		{"explicit above the policies", benchOptions{jobs: 30}, 11},
	} {
		if got := benchJobs(&tc.o, 11); got != tc.want {
			t.Errorf("%s: %d jobs, want %d", tc.name, got, tc.want)
		}
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

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// TestBenchRedo plays a busy machine with a stand-in for
// reports.Distortion over small simulated runs: when a run alone is
// distorted too, bench stops retrying and says so; when it is honest, the
// other flagged runs go again at half the concurrency.
func TestBenchRedo(t *testing.T) {
	names := []string{"random", "round-robin", "least-request", "prefix-cache"}
	for _, tc := range []struct {
		name string
		// flag reports whether a Summary counts as distorted; first holds
		// the Summaries of the side-by-side runs.
		flag func(first map[*reports.Summary]bool, s *reports.Summary) bool
		want string
	}{
		{"machine too busy", func(map[*reports.Summary]bool, *reports.Summary) bool { return true },
			"bench: random alone was distorted too"},
		{"side by side was the cause", func(first map[*reports.Summary]bool, s *reports.Summary) bool { return first[s] },
			"bench: random alone was honest; running the other 3 again, 2 at a time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &benchOptions{out: t.TempDir()}
			fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
			bindWorkload(fs, &o.wf, "mixed")
			bindPolicy(fs, &o.pf, false)
			bindClient(fs, &o.cf)
			o.so.bind(fs)
			o.mf.bind(fs)
			if err := fs.Parse([]string{"--sim", "1", "--max-requests", "20", "--rate", "20"}); err != nil {
				t.Fatal(err)
			}
			ro, err := o.so.options()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := &cobra.Command{}
			cmd.SetErr(&syncWriter{w: &stderr})
			ctx := context.Background()
			sums, err := benchBatch(ctx, cmd, o, ro, names, 4)
			if err != nil {
				t.Fatal(err)
			}
			first := map[*reports.Summary]bool{}
			for _, s := range sums {
				first[s] = true
			}
			old := distortion
			t.Cleanup(func() { distortion = old })
			distortion = func(s *reports.Summary) string {
				if tc.flag(first, s) {
					return "late"
				}
				return ""
			}
			if err := benchRedo(ctx, cmd, o, ro, names, sums, 4); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr.String())
			}
			for i, s := range sums {
				if s == nil || s.OK != 20 {
					t.Errorf("%s: summary %v", names[i], s)
				}
			}
		})
	}
}
