package reports

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files (and the testdata results files they are built from)")

// goldenRuns are the testdata Runs: the same workload under three
// policies: one under the vtc Queue, one with errors, scrapes and host
// CPU steal above the warning threshold, one under the multi-bin Queue.
func goldenRuns() []synthRun {
	users := []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d", "tenant-e", "tenant-f"}
	return []synthRun{
		{policy: "round-robin", n: 400, backends: 4, users: users, rate: 8, ttft: 90 * ms1, tbt: 22 * ms1, seed: 11,
			vtc: true, steal: 0.3, busy: 48.5},
		{policy: "prefix-cache", n: 400, backends: 4, users: users, rate: 8, ttft: 60 * ms1, tbt: 20 * ms1,
			errEvery: 40, seed: 12, scrape: true, steal: 6.4, busy: 41.2},
		{policy: "least-request", n: 400, backends: 4, users: users, rate: 8, ttft: 70 * ms1, tbt: 21 * ms1,
			seed: 13, multiBin: true, steal: 0.1, busy: 52.7},
	}
}

// goldenSummaries reads the testdata results files (regenerating them
// with -update) with fixed options.
func goldenSummaries(t *testing.T) []*metrics.Summary {
	t.Helper()
	o := metrics.DefaultOptions()
	o.SLO.TTFT, o.SLO.TPOT = 250*time.Millisecond, 25*time.Millisecond
	o.Warmup = 5 * time.Second
	o.FairnessWindow = 10 * time.Second
	var runs []*metrics.Summary
	for _, r := range goldenRuns() {
		path := filepath.Join("testdata", "results-"+r.policy+".jsonl")
		if *update {
			r.write(t, "testdata")
		}
		s, err := metrics.Summarize(path, o)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, s)
	}
	return runs
}

// checkGolden compares got with testdata/golden/name, rewriting it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs from the golden file (-want +got; go test -update refreshes it):\n%s", name, d)
	}
}

func TestGoldenMarkdown(t *testing.T) {
	runs := goldenSummaries(t)
	dir := t.TempDir()
	if err := WriteMarkdown(dir, runs, RenderOptions{Title: "Golden report"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "report.md", got)
	for _, plot := range []string{"ttft_cdf", "throughput", "user_service", "vtc_counter", "hit_rate", "bin_target"} {
		b, err := os.ReadFile(filepath.Join(dir, "plots", plot+".svg"))
		if err != nil {
			t.Errorf("plot %s: %v", plot, err)
			continue
		}
		if !bytes.Contains(b, []byte("<svg")) || len(b) < 2000 {
			t.Errorf("plot %s: %d bytes, not a drawn SVG", plot, len(b))
		}
		if !bytes.Contains(got, []byte("](plots/"+plot+".svg)")) {
			t.Errorf("report does not embed plots/%s.svg", plot)
		}
	}
}

func TestGoldenCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, goldenSummaries(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.csv", b.Bytes())
	head, _, _ := strings.Cut(b.String(), "\n")
	if head != strings.Join(SummaryColumns(), ",") {
		t.Errorf("header row differs from SummaryColumns")
	}
}

func TestGoldenTable(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, goldenSummaries(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "table.txt", b.Bytes())
}

func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	o := metrics.DefaultOptions()
	o.SLO.TTFT, o.SLO.TPOT = 500*ms1, 60*ms1
	if err := WriteJSON(&b, []*metrics.Summary{summarizeHand(o)}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "summary.json", b.Bytes())
}

func TestGoldenRequestsCSV(t *testing.T) {
	var b bytes.Buffer
	o := metrics.DefaultOptions()
	o.SLO.TTFT = 250 * time.Millisecond
	o.Warmup = 5 * time.Second
	if err := WriteRequestsCSV(&b, o, filepath.Join("testdata", "results-prefix-cache.jsonl")); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	// The header, 40 requests before and after the cut, and an error row.
	checkGolden(t, "requests-head.csv", []byte(strings.Join(lines[:min(len(lines), 60)], "")))
	if n := len(lines) - 2; n != 400 { // header and the empty string after the last newline
		t.Errorf("%d request rows, want 400", n)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	o := metrics.DefaultOptions()
	o.SLO.TTFT = 500 * ms1
	want := summarizeHand(o)
	var b bytes.Buffer
	if err := WriteJSON(&b, []*metrics.Summary{want}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Requests int64           `json:"requests"`
			TTFT     metrics.Dist    `json:"ttft"`
			HitRate  metrics.HitRate `json:"hit_rate"`
			Series   metrics.Series  `json:"series"`
		} `json:"runs"`
	}
	// null (unmeasured) figures decode as zero.
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Runs[0]
	if got.Requests != want.Requests || got.TTFT != want.TTFT || got.HitRate.Server != want.HitRate.Server {
		t.Errorf("decoded %+v, want requests %d, ttft %+v", got, want.Requests, want.TTFT)
	}
	if d := cmp.Diff(want.Series.Throughput, got.Series.Throughput); d != "" {
		t.Errorf("throughput series (-want +got):\n%s", d)
	}
}

// TestMergedRunStatesShards: a run merged from shards says in the
// markdown report, the terminal table and the CSV how many shards ran and
// that each had its own router state; unsharded runs say nothing.
func TestMergedRunStatesShards(t *testing.T) {
	runs := goldenSummaries(t)
	runs[1].Header.Shards = 4
	want := "prefix-cache: merged from 4 shards; each shard ran its own Router and Queue state"
	var md, table, csv bytes.Buffer
	renderMarkdown(&md, runs, nil, RenderOptions{}.withDefaults())
	if err := WriteTable(&table, runs); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&csv, runs); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"report.md": md.String(), "table": table.String()} {
		if n := strings.Count(out, "merged from"); n != 1 || !strings.Contains(out, want) {
			t.Errorf("%s: %d shard notes, want one saying %q", name, n, want)
		}
	}
	col := slices.Index(SummaryColumns(), "shards")
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(csv.String()), "\n")[1:] {
		got = append(got, strings.Split(line, ",")[col])
	}
	if d := cmp.Diff([]string{"0", "4", "0"}, got); d != "" {
		t.Errorf("shards column (-want +got):\n%s", d)
	}
}
