package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
)

// TestErrorLimit: the limit asks to stop only once errorLimitMinResults
// Results are in and the failed share is strictly over max.
func TestErrorLimit(t *testing.T) {
	tests := []struct {
		name string
		max  float64
		// fail says whether Result i (0-based) failed.
		fail func(i int) bool
		// stopAt is the 1-based Result that trips the limit (0: none in 100).
		stopAt int
	}{
		{"all fail waits for the minimum", 0.05, func(int) bool { return true }, errorLimitMinResults},
		{"none fail", 0.05, func(int) bool { return false }, 0},
		{"one in twenty is not over 5 %", 0.05, func(i int) bool { return i == 3 }, 0},
		{"two in twenty are", 0.05, func(i int) bool { return i == 3 || i == 7 }, errorLimitMinResults},
		{"late burst", 0.05, func(i int) bool { return i >= 40 }, 43},
		{"zero limit, first failure after the minimum", 0, func(i int) bool { return i == 24 }, 25},
		{"limit 1 never stops", 1, func(int) bool { return true }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := &errorLimit{max: tc.max}
			got := 0
			for i := 0; i < 100 && got == 0; i++ {
				r := &replay.Result{}
				if tc.fail(i) {
					r.ErrClass = replay.ErrHTTP5xx
				}
				if lim.check(r) == stopErrorLimit {
					got = i + 1
				}
			}
			if got != tc.stopAt {
				t.Fatalf("stopped at result %d, want %d", got, tc.stopAt)
			}
			if got > 0 && (lim.at != got || !(lim.tripped > tc.max)) {
				t.Errorf("tripped %v at %d", lim.tripped, lim.at)
			}
		})
	}
}

// TestSweepErrorLimitCutsRun sweeps a live target on 127.0.0.1 whose
// completions all fail with 500: the run is cut short once the error
// limit trips, far before its 400 requests (4 s at 100 req/s) are sent,
// the results file says why and still reads as a report, and the sweep
// report says the policy broke on errors.
func TestSweepErrorLimitCutsRun(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
			return
		}
		hits.Add(1)
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	const planned = 400
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "sweep", "--target", srv.URL, "--policies", "round-robin",
		"--rates", "100", "--max-requests", fmt.Sprint(planned), "--cooldown", "0s", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "stopped after 20 results on --max-error-rate") {
		t.Errorf("stderr lacks the stop on the run line:\n%s", stderr)
	}
	rows := readCSV(t, filepath.Join(dir, "sweep.csv"))
	if len(rows) != 2 {
		t.Fatalf("sweep.csv: %d rows, want a header and 1 run\n%s", len(rows), stdout)
	}
	results := filepath.Join(dir, rows[1][indexOf(rows[0], "results_file")])
	sum, err := reports.Summarize(results, reports.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sent := hits.Load()
	if sum.Stop == nil || sum.Stop.Reason != stopErrorLimit {
		t.Fatalf("stop line %+v, want reason %q", sum.Stop, stopErrorLimit)
	}
	if sum.Requests < errorLimitMinResults || sum.Requests >= planned/2 || sent >= planned/2 || sent > int64(sum.Requests) {
		t.Errorf("%d results, %d requests reached the server; want at least %d and well under the %d planned",
			sum.Requests, sent, errorLimitMinResults, planned)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "broke on errors") || !strings.Contains(string(md), stopErrorLimit) {
		t.Errorf("sweep.md does not say the policy broke on errors:\n%s", md)
	}
	if code, out, errOut := runCLI(t, "report", results); code != ExitOK || !strings.Contains(out, "round-robin") {
		t.Errorf("report of the cut run: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("cut after %d results, %d requests reached the server, of %d planned", sum.Requests, sent, planned)
}
