package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestSweepErrorLimitCutsRun sweeps a live target on 127.0.0.1 whose
// completions all fail with 500: the run is cut short once the error
// limit trips, far before its 400 requests (4 s at 100 req/s) are sent,
// the results file says why and still reads as a report, and the sweep
// report says the policy broke on errors.
func TestSweepErrorLimitCutsRun(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"vllm"}]}`)
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
	path := filepath.Join(dir, rows[1][indexOf(rows[0], "results_file")])
	sum, err := metrics.Summarize(path, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	sent := hits.Load()
	if sum.Stop == nil || sum.Stop.Reason != results.StopErrorLimit {
		t.Fatalf("stop line %+v, want reason %q", sum.Stop, results.StopErrorLimit)
	}
	if sum.Requests < bench.ErrorLimitMinResults || sum.Requests >= planned/2 || sent >= planned/2 || sent > int64(sum.Requests) {
		t.Errorf("%d results, %d requests reached the server; want at least %d and well under the %d planned",
			sum.Requests, sent, bench.ErrorLimitMinResults, planned)
	}
	md, err := os.ReadFile(filepath.Join(dir, "sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "broke on errors") || !strings.Contains(string(md), string(results.StopErrorLimit)) {
		t.Errorf("sweep.md does not say the policy broke on errors:\n%s", md)
	}
	if code, out, errOut := runCLI(t, "report", path); code != ExitOK || !strings.Contains(out, "round-robin") {
		t.Errorf("report of the cut run: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("cut after %d results, %d requests reached the server, of %d planned", sum.Requests, sent, planned)
}

// TestSweepErrorsOverLimitFail sweeps a live target on 127.0.0.1 that
// answers every completion but the last 4 of the second run. That run's
// 4 errors come too late for the error limit to cut it short (4 of 100
// results never exceed 5 %), but after the 300 ms warm-up they are 4 of
// 40 measured requests: an error rate of 10 % over the 5 % limit with
// 90 % attainment against an 80 % target. The run must fail, its rate
// must not count as sustained, and it must read as broken by errors.
func TestSweepErrorsOverLimitFail(t *testing.T) {
	const n, late = 100, 4
	tests := []struct {
		name string
		args []string
	}{
		{"ladder", []string{"--rates", "100,200"}},
		{"search", []string{"--start-rate", "100", "--growth", "2", "--max-runs", "2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var completions atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/models" {
					fmt.Fprint(w, `{"data":[{"id":"m","owned_by":"vllm"}]}`)
					return
				}
				if c := completions.Add(1); c > 2*n-late {
					http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				for _, ev := range []string{`{"choices":[{"index":0,"text":"a","finish_reason":null}]}`,
					`{"choices":[{"index":0,"text":"b","finish_reason":"length"}]}`, "[DONE]"} {
					fmt.Fprintf(w, "data: %s\n\n", ev)
				}
			}))
			defer srv.Close()
			s, _, err := sweepFor(t, context.Background(), append([]string{"--target", srv.URL, "--policies",
				"round-robin", "--max-requests", fmt.Sprint(n), "--arrival", "constant", "--warmup", "300ms",
				"--attainment", "0.8", "--cooldown", "0s"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Policies) != 1 || len(s.Policies[0].Steps) != 2 {
				t.Fatalf("want one policy with 2 runs, got %+v", s.Policies)
			}
			p := &s.Policies[0]
			first, second := &p.Steps[0], &p.Steps[1]
			if !first.Pass || first.Summary.ErrorRate != 0 {
				t.Fatalf("first run: pass %v, error rate %v; want a clean pass", first.Pass, first.Summary.ErrorRate)
			}
			sum := second.Summary
			if sum.Stop == nil || sum.Stop.Reason == results.StopErrorLimit || sum.Requests != 40 || sum.ErrorRate != 0.1 ||
				sum.SLA.Attainment < 0.8 {
				t.Fatalf("second run: stop %+v, %d requests, error rate %v, attainment %v; want 40 measured, 10 %% "+
					"errors, attainment >= 80 %%, not cut short", sum.Stop, sum.Requests, sum.ErrorRate, sum.SLA.Attainment)
			}
			if second.Pass || p.Sustained != first.Rate || p.Broken != second.Rate {
				t.Errorf("second run pass %v; sustained %v broken %v, want %v and %v", second.Pass, p.Sustained,
					p.Broken, first.Rate, second.Rate)
			}
			if by := p.BrokeBy(s.MaxErrorRate); by != "errors (10.0 % > 5.0 % limit)" {
				t.Errorf("broke by %q, want errors over the limit", by)
			}
			if !strings.Contains(p.Stopped, "exceeds --max-error-rate") {
				t.Errorf("stopped %q, want the error rate over --max-error-rate", p.Stopped)
			}
		})
	}
}
