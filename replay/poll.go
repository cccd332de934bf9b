package replay

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

// minScrapeTimeout is the shortest time a scrape may take before it is
// abandoned: a short ScrapeEvery must not make every scrape of a busy
// server time out.
const minScrapeTimeout = time.Second

// scrapeTimeout is how long one scrape may take: ScrapeEvery, at least
// minScrapeTimeout.
func (s *scheduler) scrapeTimeout() time.Duration {
	return max(s.o.ScrapeEvery, minScrapeTimeout)
}

// startScrape polls every Backend's /metrics each ScrapeEvery and sends
// the figures to the scheduler; each scrape may take scrapeTimeout (a
// slow one delays the next tick rather than piling up). It returns a
// function that stops polling and waits for the pollers to exit.
func (s *scheduler) startScrape(ctx context.Context) func() {
	if s.o.ScrapeEvery <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	hc := &http.Client{Timeout: s.scrapeTimeout()}
	var wg sync.WaitGroup
	s.startPoller = func(i int, u string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.pollBackend(ctx, hc, i, u)
		}()
	}
	for i, u := range s.urls {
		s.startPoller(i, u)
	}
	return func() { cancel(); wg.Wait() }
}

// finalScrape scrapes every Backend once more when the Run is over (at
// end, the Run clock), so counter deltas and the mock's lateness cover
// the whole Run rather than end at the last periodic scrape. Each scrape
// gets ScrapeEvery, at least a second; a failed one leaves the last
// periodic scrape in place. It runs on the scheduler goroutine after the
// pollers have stopped.
func (s *scheduler) finalScrape(ctx context.Context, end time.Duration) {
	if s.o.ScrapeEvery <= 0 {
		return
	}
	timeout := s.scrapeTimeout()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	hc := &http.Client{Timeout: timeout}
	ms := make([]scrapeResult, len(s.urls))
	var wg sync.WaitGroup
	for i, u := range s.urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := Scrape(ctx, hc, u, s.dialect())
			m.OK = err == nil
			ms[i] = scrapeResult{backend: i, m: m, err: err}
		}()
	}
	wg.Wait()
	for i := range ms {
		s.recordScrape(end, &ms[i])
	}
}

// recordScrape keeps a scrape taken at (Run clock) for the counter deltas
// and, when it succeeded, writes it to the results as an event.
func (s *scheduler) recordScrape(at time.Duration, sr *scrapeResult) {
	s.scrapes.add(sr.backend, sr.m)
	s.warnScrape(sr)
	if sr.m.OK {
		s.results <- record{ev: scrapeEvent(at, sr)}
	}
}

func (s *scheduler) pollBackend(ctx context.Context, hc *http.Client, i int, url string) {
	t := time.NewTicker(s.o.ScrapeEvery)
	defer t.Stop()
	for {
		m, err := Scrape(ctx, hc, url, s.dialect())
		m.OK = err == nil
		select {
		case s.events <- event{scrape: &scrapeResult{backend: i, m: m, err: err}}:
		case <-ctx.Done():
			return
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
	}
}

// scrapeDeltas keeps each Backend's first and last successful scrape so
// the server-side prefix hit rate over the Run is a counter delta, and
// counts scrapes and failed scrapes.
type scrapeDeltas struct {
	first, last     map[int]ServerMetrics
	tries, failures int
}

func (d *scrapeDeltas) add(i int, m ServerMetrics) {
	d.tries++
	if !m.OK {
		d.failures++
		return
	}
	if d.first == nil {
		d.first, d.last = map[int]ServerMetrics{}, map[int]ServerMetrics{}
	}
	if _, ok := d.first[i]; !ok {
		d.first[i] = m
	}
	d.last[i] = m
}

// extra returns the summed deltas for the stop record, with the mock's
// step lateness when a Backend is the bundled mock (nil: no scrapes).
// The counts of scrapes are recorded whenever the Run scraped; each
// prefix counter only when some Backend exported it.
func (d *scrapeDeltas) extra() map[string]float64 {
	if d.tries == 0 {
		return nil
	}
	counts := map[string]float64{results.ExtraScrapes: float64(d.tries), results.ExtraScrapeFailures: float64(d.failures)}
	if len(d.last) == 0 {
		return counts
	}
	unknown := 0
	for i, l := range d.last {
		if l.Has == 0 && d.first[i].Has == 0 {
			unknown++
		}
	}
	if unknown > 0 {
		counts[results.ExtraScrapeUnknown] = float64(unknown)
	}
	var q, h, pre float64
	var has dialect.Field
	for i, l := range d.last {
		f := d.first[i]
		has |= l.Has
		q += l.PrefixQueries - f.PrefixQueries
		h += l.PrefixHits - f.PrefixHits
		pre += l.Preemptions - f.Preemptions
	}
	if has&dialect.FieldPrefixQueries != 0 {
		counts[results.ExtraPrefixQueries] = q
	}
	if has&dialect.FieldPrefixHits != 0 {
		counts[results.ExtraPrefixHits] = h
	}
	counts[results.ExtraPreemptions] = pre
	return MergeExtra(counts, d.mockExtra())
}

// mockExtra returns the bundled mock's step lateness under the in-process
// fleet's keys (nil when no Backend exposes it, e.g. vLLM): p50, p99 and
// max in µs from each mock's last scrape, the worst Backend's, marked
// with ExtraMockLateScraped as they cover the mock process's lifetime,
// not just this Run; and mock_steps, the steps run during the Run (the
// steps counter's delta between the first and last scrape, summed over
// Backends; 0 for a Backend whose counter went down, a mock restarted
// during the Run).
func (d *scrapeDeltas) mockExtra() map[string]float64 {
	var p50, p99, mx, steps float64
	mock := false
	for i, l := range d.last {
		if !l.Mock {
			continue
		}
		mock = true
		p50, p99, mx = max(p50, l.StepLateP50), max(p99, l.StepLateP99), max(mx, l.StepLateMax)
		steps += max(0, l.MockSteps-d.first[i].MockSteps)
	}
	if !mock {
		return nil
	}
	return map[string]float64{results.ExtraMockLateP50: p50 * 1e6, results.ExtraMockLateP99: p99 * 1e6, results.ExtraMockLateMax: mx * 1e6,
		results.ExtraMockSteps: steps, results.ExtraMockLateScraped: 1}
}

// EventNumGPUBlocks is the scrape event value of vllm:cache_config_info's
// num_gpu_blocks label (present when the server exposes it).
const EventNumGPUBlocks = "num_gpu_blocks"

// scrapeEvent records one scrape for the per-backend report figures:
// only the figures the page carried, so a report shows n/a, not 0, for
// the others.
func scrapeEvent(now time.Duration, sr *scrapeResult) *results.Event {
	m := sr.m
	v := map[string]float64{}
	for _, f := range []struct {
		has  dialect.Field
		name string
		val  float64
	}{{dialect.FieldPrefixHits, "prefix_cache_hits_total", m.PrefixHits},
		{dialect.FieldPrefixQueries, "prefix_cache_queries_total", m.PrefixQueries},
		{dialect.FieldKVUsage, "kv_cache_usage_perc", m.KVUsage},
		{dialect.FieldRunning, "num_requests_running", m.Running},
		{dialect.FieldWaiting, "num_requests_waiting", m.Waiting},
		{dialect.FieldGenerationTokens, "generation_tokens_total", m.GenerationTokens}} {
		if m.Has&f.has != 0 {
			v[f.name] = f.val
		}
	}
	if m.NumGPUBlocks > 0 {
		v[EventNumGPUBlocks] = float64(m.NumGPUBlocks)
	}
	return &results.Event{At: now, Source: "scrape:" + strconv.Itoa(sr.backend), Values: v}
}

// dialect is the Backends' dialect (the Client's; nil reads as vLLM).
func (s *scheduler) dialect() *dialect.Dialect {
	if s.o.Client == nil {
		return nil
	}
	return s.o.Client.Options().Dialect
}

// warnScrape logs, once per Backend, the first failed scrape and a page
// that carries none of the dialect's names (the figures would otherwise
// read as idle servers). It runs on the scheduler goroutine.
func (s *scheduler) warnScrape(sr *scrapeResult) {
	m, i := &sr.m, sr.backend
	if s.scrapeWarned[i] || (m.OK && m.Has != 0) || i < 0 || i >= len(s.urls) {
		return
	}
	if s.scrapeWarned == nil {
		s.scrapeWarned = map[int]bool{}
	}
	s.scrapeWarned[i] = true
	u := client.BaseURL(s.urls[i]) + "/metrics"
	if !m.OK {
		slog.Warn("scrape failed; its figures are n/a", "backend", u, "err", sr.err)
		return
	}
	slog.Warn(fmt.Sprintf("%s has no known %s names (found %s); its scraped figures are n/a", u, dialect.OrDefault(s.dialect()).Name,
		foundText(m.Found)))
}

// foundText lists namespaces as "llamacpp:*, vllm:*" ("no namespaced names").
func foundText(ps []string) string {
	if len(ps) == 0 {
		return "no namespaced names"
	}
	out := ""
	for i, p := range ps {
		if i > 0 {
			out += ", "
		}
		out += p + "*"
	}
	return out
}
