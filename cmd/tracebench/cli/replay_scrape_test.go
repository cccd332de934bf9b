package cli

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// replayScraping runs `tracebench replay --target ... --scrape` with a
// scrape interval of 200 ms and returns the results file's stop extras.
func replayScraping(t *testing.T, targets ...string) map[string]float64 {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	args := []string{"replay", "--max-requests", "8", "--rate", "40", "--scrape", "--scrape-interval", "200ms",
		"--out", out}
	for _, u := range targets {
		args = append(args, "--target", u)
	}
	if code, _, stderr := runCLI(t, args...); code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 8 || sum.Stop == nil || sum.Stop.Reason != "done" {
		t.Fatalf("%d ok, stop %+v; want 8 ok and done", sum.OK, sum.Stop)
	}
	return sum.Stop.Extra
}

// TestReplayScrapedMockLateness replays against a mock fleet started on
// its own, as `tracebench mock` in another process would be: scraping its
// /metrics puts its step lateness, marked as scraped (it covers the
// mock's lifetime), and the steps it ran in the stop line, where the
// report reads them.
func TestReplayScrapedMockLateness(t *testing.T) {
	f := startTestFleet(t, "")
	ex := replayScraping(t, f.URLs()...)
	late := f.Lateness()
	steps, p50, p99, mx := ex[results.ExtraMockSteps], ex[results.ExtraMockLateP50], ex[results.ExtraMockLateP99],
		ex[results.ExtraMockLateMax]
	if !(steps > 0) || steps > float64(late.Steps) {
		t.Errorf("mock_steps %v, want positive and at most the %d steps the fleet ran", steps, late.Steps)
	}
	if got := ex[results.ExtraMockLateScraped]; got != 1 {
		t.Errorf("%s = %v, want 1 for lateness scraped from the mock", results.ExtraMockLateScraped, got)
	}
	if !(p50 >= 0 && p99 >= p50 && mx >= p99) {
		t.Errorf("lateness p50 %v p99 %v max %v µs: want 0 ≤ p50 ≤ p99 ≤ max", p50, p99, mx)
	}
	// Both replicas' histograms are the fleet's: the worst replica's max
	// is the fleet's max.
	if want := float64(late.Max) / float64(time.Microsecond); math.Abs(mx-want) > 1 {
		t.Errorf("mock_step_late_max_us %v, fleet max %v µs", mx, want)
	}
}

// TestReplayScrapeWithoutMockMetrics: a server that does not expose the
// mock's lateness (a vLLM) leaves the mock figures out of the stop line,
// while its scraped counters are recorded.
func TestReplayScrapeWithoutMockMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"m"}]}`)
		case "/metrics":
			fmt.Fprint(w, "# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total 10\n"+
				"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 0\n")
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a \",\"finish_reason\":null}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
		}
	}))
	defer srv.Close()
	ex := replayScraping(t, srv.URL)
	if _, ok := ex[results.ExtraPrefixQueries]; !ok {
		t.Fatalf("stop extras %v lack the scraped counters", ex)
	}
	for _, k := range []string{results.ExtraMockLateP50, results.ExtraMockLateP99, results.ExtraMockLateMax,
		results.ExtraMockSteps, results.ExtraMockLateScraped} {
		if v, ok := ex[k]; ok {
			t.Errorf("stop extras record %s = %v for a server without the mock's metrics", k, v)
		}
	}
}
