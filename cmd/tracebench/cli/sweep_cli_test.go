package cli

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestSweepEndToEnd runs `tracebench sweep` in virtual time and checks
// the table, the report files and that every run's results file exists.
func TestSweepEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run([]string{"sweep", "--sim", "2", "--policies", "round-robin,least-request", "--baseline", "least-request",
		"--max-requests", "200", "--rates", "10,40,160,640", "--out", dir}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	for _, w := range []string{"round-robin", "least-request", "baseline", "sustained req/s", "report: "} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "sweep round-robin run 1: 10 req/s") {
		t.Errorf("stderr lacks the per-run line:\n%s", stderr.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "](plots/sweep-capacity.svg)") {
		t.Error("sweep.md does not embed the plot")
	}
	if page, err := os.ReadFile(filepath.Join(dir, "report.html")); err != nil || !strings.Contains(string(page), `id="plot-capacity"`) {
		t.Errorf("report.html has no capacity curve (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "sweep-capacity.svg")); err != nil {
		t.Error(err)
	}
	rows := readCSV(t, filepath.Join(dir, "sweep.csv"))
	if len(rows) < 3 {
		t.Fatalf("sweep.csv has %d rows", len(rows))
	}
	col := indexOf(rows[0], "results_file")
	for _, r := range rows[1:] {
		sum, err := metrics.Summarize(filepath.Join(dir, r[col]), metrics.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Requests != 200 || sum.Header.Mode != "sim" {
			t.Errorf("%s: %d requests, mode %q", r[col], sum.Requests, sum.Header.Mode)
		}
	}
}

// TestSweepMockEndToEnd sweeps a small ladder against real-time mock
// fleets over loopback HTTP (a fresh fleet per run).
func TestSweepMockEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run([]string{"sweep", "--mock", "2", "--mock-profile", "fast", "--policies", "round-robin",
		"--max-requests", "20", "--rates", "20,40", "--out", dir}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	rows := readCSV(t, filepath.Join(dir, "sweep.csv"))
	if len(rows) != 3 {
		t.Fatalf("sweep.csv: %d rows, want a header and 2 runs", len(rows))
	}
	sum, err := metrics.Summarize(filepath.Join(dir, rows[1][indexOf(rows[0], "results_file")]), metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Header.Mode != "mock" || sum.OK != 20 {
		t.Errorf("mode %q, %d ok", sum.Header.Mode, sum.OK)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// TestSweepUsageErrors: every bad flag is a usage error naming it.
func TestSweepUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rate", []string{"--rate", "5"}, "--rate"},
		{"time-scale", []string{"--time-scale", "2"}, "--time-scale"},
		{"start with ladder", []string{"--rates", "1,2", "--start-rate", "3"}, "--start-rate"},
		{"growth with ladder", []string{"--rates", "1,2", "--growth", "3"}, "--growth"},
		{"attainment zero", []string{"--attainment", "0"}, "--attainment"},
		{"attainment over one", []string{"--attainment", "1.5"}, "--attainment"},
		{"tolerance", []string{"--tolerance", "0"}, "--tolerance"},
		{"max runs", []string{"--max-runs", "0"}, "--max-runs"},
		{"growth", []string{"--growth", "1"}, "--growth"},
		{"max error rate", []string{"--max-error-rate", "2"}, "--max-error-rate"},
		{"cooldown", []string{"--cooldown", "-1s"}, "--cooldown"},
		{"vary", []string{"--vary", "speed"}, "--vary"},
		{"policy", []string{"--policies", "round-robin,nope"}, "--policies"},
		{"baseline", []string{"--policies", "random", "--baseline", "round-robin"}, "--baseline"},
		{"rates text", []string{"--rates", "1,fast"}, "--rates"},
		{"rates negative", []string{"--rates", "-1"}, "--rates"},
		{"start rate", []string{"--start-rate", "0x"}, "--start-rate"},
		{"sim and target", []string{"--target", "http://127.0.0.1:1"}, "--sim and --target"},
		{"workload", []string{"--workload", "nope"}, "--workload"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"sweep", "--sim", "2", "--out", t.TempDir()}, tc.args...)
			if code := Run(args, &stdout, &stderr); code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr: %s", code, ExitUsage, stderr.String())
			}
			if msg := stderr.String(); !strings.Contains(msg, tc.want) || strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr %q: want one line naming %s", msg, tc.want)
			}
		})
	}
}

// TestSweepDefaults: defaults that depend on where the runs go.
func TestSweepDefaults(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		requests int
		growth   float64
		cooldown string
		params   []string
	}{
		{"sim", []string{"--sim", "4"}, 2000, 4, "0s", []string{"requests=2000"}},
		{"mock", nil, 1000, 4, "0s", []string{"requests=1000"}},
		{"target", []string{"--target", "http://127.0.0.1:1"}, 400, 2, "10s", []string{"requests=400"}},
		{"given", []string{"--sim", "4", "--max-requests", "50", "--growth", "3", "--cooldown", "1s",
			"--workload-param", "requests=80"}, 50, 3, "1s", []string{"requests=80"}},
		{"trace", []string{"--sim", "4", "--trace", "t.jsonl"}, 2000, 4, "0s", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &sweepOptions{}
			cmd := sweepCommand(o)
			if err := cmd.ParseFlags(tc.args); err != nil {
				t.Fatal(err)
			}
			o.resolveDefaults(cmd.Flags().Changed)
			if o.wf.MaxRequests != tc.requests || o.growth != tc.growth || o.cooldown.String() != tc.cooldown ||
				strings.Join(o.wf.WorkloadArgs.Strings(), " ") != strings.Join(tc.params, " ") {
				t.Errorf("requests %d growth %v cooldown %v params %v", o.wf.MaxRequests, o.growth, o.cooldown,
					o.wf.WorkloadArgs)
			}
		})
	}
}
