package cli

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestDialectsEndToEnd replays against mock fleets answering in each
// dialect, with --dialect auto: the header records the detected dialect
// and why; the server hit rate comes from wherever the dialect puts
// cached tokens, and is n/a with a warning where it puts none; scraped
// figures come from the dialect's metric names.
func TestDialectsEndToEnd(t *testing.T) {
	tests := []struct {
		dialect    string
		reason     string
		serverHit  bool // a server hit rate, not n/a
		scrapedHit bool // a scraped prefix hit rate
		warn       string
	}{
		{dialect.VLLM, `owned_by "vllm"`, true, true, ""},
		{dialect.SGLang, `owned_by "sglang"`, true, true, ""},
		{dialect.LlamaCpp, `owned_by "llamacpp"`, true, false, ""},
		{dialect.OpenAI, "without a known owner", false, false, "no cached-token count in responses from"},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			f := startTestFleet(t, tc.dialect)
			out := filepath.Join(t.TempDir(), "r.jsonl")
			args := []string{"replay", "--workload", "shared-prefix", "--workload-param", "requests=20", "--rate", "40",
				"--policy", "prefix-cache", "--scrape", "--scrape-interval", "100ms", "--out", out}
			for _, u := range f.URLs() {
				args = append(args, "--target", u)
			}
			if code, _, stderr := runCLI(t, args...); code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			sum, err := metrics.Summarize(out, metrics.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			cfg := sum.Header.Config
			if cfg.Dialect != tc.dialect || !strings.Contains(cfg.DialectReason, tc.reason) {
				t.Errorf("header dialect %v (%v), want %s (%s)", cfg.Dialect, cfg.DialectReason, tc.dialect, tc.reason)
			}
			if sum.OK != 20 {
				t.Fatalf("%d of 20 succeeded", sum.OK)
			}
			if h := sum.HitRate.Server; math.IsNaN(h) == tc.serverHit || (tc.serverHit && !(h > 0 && h <= 1)) {
				t.Errorf("server hit rate %v, want known = %v and in (0, 1]", h, tc.serverHit)
			}
			if h := sum.HitRate.Scraped; math.IsNaN(h) == tc.scrapedHit || (tc.scrapedHit && !(h > 0 && h <= 1)) {
				t.Errorf("scraped hit rate %v, want known = %v and in (0, 1]", h, tc.scrapedHit)
			}
			if p := sum.HitRate.Predicted; !(p > 0 && p <= 1) {
				t.Errorf("predicted hit rate %v, want in (0, 1]", p)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(sum.Warnings, "\n"), tc.warn) {
				t.Errorf("no warning %q in %q", tc.warn, sum.Warnings)
			}
			if tc.dialect != dialect.OpenAI && sum.Stop.Extra[results.ExtraScrapeFailures] != 0 {
				t.Errorf("%v scrapes failed", sum.Stop.Extra[results.ExtraScrapeFailures])
			}
		})
	}
}

// TestDialectFlagErrors: an unknown dialect is one line naming the flag.
func TestDialectFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"replay", "--mock", "1", "--workload", "shared-prefix", "--max-requests", "1", "--policy", "random", "--dialect", "tgi"},
		{"mock", "--dialect", "tgi", "--port", "0"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code == ExitOK || !strings.Contains(stderr, "--dialect") || !strings.Contains(stderr, `"tgi"`) {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming --dialect and the value", args, code, stderr)
		}
	}
}
