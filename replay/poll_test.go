package replay

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

// TestScrapeDeltasMockExtra: the stop extras carry the bundled mock's
// step lateness only when a Backend exposed it, as the worst Backend's
// p50, p99 and max (µs) from its last scrape, marked as scraped (they
// cover the mock's lifetime), and the steps run between each Backend's
// first and last scrape, summed; a counter that went down (a restarted
// mock) adds none.
func TestScrapeDeltasMockExtra(t *testing.T) {
	vllm := func(hits float64) ServerMetrics {
		return ServerMetrics{PrefixHits: hits, OK: true, Has: dialect.FieldPrefixHits | dialect.FieldPrefixQueries}
	}
	mock := func(steps, p50, p99, mx float64) ServerMetrics {
		return ServerMetrics{MockSteps: steps, StepLateP50: p50, StepLateP99: p99, StepLateMax: mx, Mock: true, OK: true,
			Has: dialect.FieldRunning}
	}
	tests := []struct {
		name    string
		scrapes []scrapeAt // in order; a failed one (OK false) is ignored
		want    map[string]float64
	}{
		{"vLLM: no mock figures", []scrapeAt{{0, vllm(10)}, {1, vllm(5)}, {0, vllm(30)}, {1, vllm(5)}},
			map[string]float64{results.ExtraPrefixQueries: 0, results.ExtraPrefixHits: 20, results.ExtraPreemptions: 0,
				results.ExtraScrapes: 4, results.ExtraScrapeFailures: 0}},
		{"two mocks: worst lateness, steps summed over the run", []scrapeAt{{0, mock(100, 1e-5, 1e-3, 2e-3)},
			{1, mock(50, 0, 0, 0)}, {0, mock(400, 2e-5, 3e-3, 9e-3)}, {1, mock(150, 4e-5, 1e-3, 5e-3)},
			{1, ServerMetrics{}}},
			map[string]float64{results.ExtraPreemptions: 0, results.ExtraScrapes: 5, results.ExtraScrapeFailures: 1,
				results.ExtraMockLateP50: 40, results.ExtraMockLateP99: 3000, results.ExtraMockLateMax: 9000, results.ExtraMockSteps: 400,
				results.ExtraMockLateScraped: 1}},
		{"a mock beside a vLLM", []scrapeAt{{0, vllm(0)}, {1, mock(0, 0, 0, 0)}, {0, vllm(7)},
			{1, mock(20, 1e-6, 2e-6, 3e-6)}},
			map[string]float64{results.ExtraPrefixQueries: 0, results.ExtraPrefixHits: 7, results.ExtraPreemptions: 0,
				results.ExtraScrapes: 4, results.ExtraScrapeFailures: 0, results.ExtraMockLateP50: 1, results.ExtraMockLateP99: 2, results.ExtraMockLateMax: 3, results.ExtraMockSteps: 20,
				results.ExtraMockLateScraped: 1}},
		{"a page without the dialect's names", []scrapeAt{{0, ServerMetrics{OK: true, Found: []string{"llamacpp:"}}},
			{0, ServerMetrics{OK: true, Found: []string{"llamacpp:"}}}},
			map[string]float64{results.ExtraPreemptions: 0, results.ExtraScrapes: 2, results.ExtraScrapeFailures: 0, results.ExtraScrapeUnknown: 1}},
		{"a mock restarted during the run", []scrapeAt{{0, mock(900, 0, 1e-3, 5e-3)}, {1, mock(10, 0, 0, 0)},
			{0, mock(30, 1e-5, 2e-5, 3e-5)}, {1, mock(70, 0, 0, 0)}},
			map[string]float64{results.ExtraPreemptions: 0, results.ExtraScrapes: 4, results.ExtraScrapeFailures: 0,
				results.ExtraMockLateP50: 10, results.ExtraMockLateP99: 20, results.ExtraMockLateMax: 30, results.ExtraMockSteps: 60,
				results.ExtraMockLateScraped: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d scrapeDeltas
			for _, s := range tc.scrapes {
				d.add(s.b, s.m)
			}
			if diff := cmp.Diff(tc.want, d.extra(), cmpFloat); diff != "" {
				t.Errorf("stop extras (-want +got):\n%s", diff)
			}
		})
	}
}

// scrapeAt is one successful or failed scrape of Backend b.
type scrapeAt struct {
	b int
	m ServerMetrics
}

// cmpFloat compares figures converted from seconds to µs to 1e-9.
var cmpFloat = cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })

// TestScrapeTimeout: a scrape may take the scrape interval, but never
// less than a second, so a short interval does not make every scrape of
// a busy server time out.
func TestScrapeTimeout(t *testing.T) {
	tests := []struct {
		every, want time.Duration
	}{
		{20 * time.Millisecond, time.Second},
		{time.Second, time.Second},
		{5 * time.Second, 5 * time.Second},
	}
	for _, tc := range tests {
		s := &scheduler{o: Options{ScrapeEvery: tc.every}}
		if got := s.scrapeTimeout(); got != tc.want {
			t.Errorf("ScrapeEvery %v: timeout %v, want %v", tc.every, got, tc.want)
		}
	}
}
