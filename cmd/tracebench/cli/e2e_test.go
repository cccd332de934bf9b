package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

// TestBenchEndToEnd runs bench over real loopback HTTP against in-process
// mock fleets (one per policy), small enough for CI.
func TestBenchEndToEnd(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run([]string{"bench", "--policies", "random,round-robin,least-request", "--mock", "2",
		"--mock-profile", "fast", "--max-requests", "24", "--rate", "40", "--out", dir}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	for _, p := range []string{"random", "round-robin", "least-request"} {
		if !strings.Contains(stdout.String(), p) {
			t.Fatalf("table lacks a row for %s:\n%s", p, stdout.String())
		}
		sum, err := metrics.Summarize(filepath.Join(dir, "results-"+p+".jsonl"), metrics.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Requests != 24 || sum.OK != 24 || !(sum.TTFT.P50 > 0) || !(sum.TBT.P50 > 0) || !(sum.Throughput.Requests > 0) {
			t.Fatalf("%s: requests %d ok %d TTFT p50 %v TBT p50 %v req/s %v", p, sum.Requests, sum.OK,
				sum.TTFT.P50, sum.TBT.P50, sum.Throughput.Requests)
		}
		if sum.Header.Mode != "mock" || sum.Stop == nil || sum.Stop.Reason != "done" {
			t.Fatalf("%s: mode %q stop %+v", p, sum.Header.Mode, sum.Stop)
		}
	}
	for _, f := range []string{"report.md", "summary.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s missing or empty: %v", f, err)
		}
	}
}

// TestReplayScrapeEndToEnd replays against a mock fleet with --scrape and
// checks the server-side figures reach the report.
func TestReplayScrapeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	var stdout, stderr bytes.Buffer
	code := Run([]string{"replay", "--mock", "2", "--mock-profile", "fast", "--workload", "shared-prefix",
		"--workload-param", "requests=30", "--rate", "30", "--policy", "prefix-cache", "--scrape",
		"--scrape-interval", "100ms", "--out", out}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 30 || !(sum.HitRate.Server > 0) || !(sum.HitRate.Scraped > 0) || !(sum.HitRate.Predicted > 0) {
		t.Fatalf("ok %d, hit rates server %v scraped %v predicted %v", sum.OK, sum.HitRate.Server,
			sum.HitRate.Scraped, sum.HitRate.Predicted)
	}
}

// TestAPIKeyNeverWritten checks the bearer token appears in neither the
// results file nor the report, even when requests fail.
func TestAPIKeyNeverWritten(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	const key = "sk-test-not-for-files-0123456789"
	var stdout, stderr bytes.Buffer
	code := Run([]string{"replay", "--mock", "1", "--mock-profile", "fast", "--max-requests", "5", "--rate", "50",
		"--api-key", key, "--header", "X-Team: bench", "--out", out, "--report-dir", dir}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if bytes.Contains(b, []byte(key)) {
			t.Fatalf("%s contains the API key", e.Name())
		}
	}
	if strings.Contains(stdout.String()+stderr.String(), key) {
		t.Fatal("output contains the API key")
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cfg := sum.Header.Config
	if cfg.Model != "mock-model" || fmt.Sprint(cfg.HeaderNames) != "[X-Team]" {
		t.Fatalf("header records model %v and header names %v; want the listed mock-model and [X-Team]",
			cfg.Model, cfg.HeaderNames)
	}
	if b, _ := os.ReadFile(out); bytes.Contains(b, []byte("X-Team: bench")) {
		t.Fatal("results file contains an extra header's value")
	}
}
