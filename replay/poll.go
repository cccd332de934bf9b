package replay

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Stop.Extra keys of the bundled mock server's step lateness, recorded
// by a Run that scrapes a mock (and by the command's in-process fleet);
// absent for other servers.
const (
	// ExtraMockLateP50, ExtraMockLateP99 and ExtraMockLateMax are the
	// median, 99th percentile and largest step lateness, in µs.
	ExtraMockLateP50 = "mock_step_late_p50_us"
	ExtraMockLateP99 = "mock_step_late_p99_us"
	ExtraMockLateMax = "mock_step_late_max_us"
	// ExtraMockSteps is the number of engine steps the mock ran during
	// the Run.
	ExtraMockSteps = "mock_steps"
	// ExtraMockLateScraped is 1 when the lateness figures were scraped
	// from the mocks' /metrics: they then cover each mock's lifetime
	// (every step since it started, steps before this Run included),
	// while ExtraMockSteps counts this Run's steps only. The command's
	// in-process fleet (results header Mode "mock") replaces the
	// lateness figures with its own, which cover just its Run, as a
	// fresh fleet is started for each.
	ExtraMockLateScraped = "mock_lateness_scraped"
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
	for i, u := range s.o.Backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.pollBackend(ctx, hc, i, u)
		}()
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
	ms := make([]ServerMetrics, len(s.o.Backends))
	var wg sync.WaitGroup
	for i, u := range s.o.Backends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := ScrapeOnce(ctx, hc, u)
			m.OK = err == nil
			ms[i] = m
		}()
	}
	wg.Wait()
	for i, m := range ms {
		s.recordScrape(end, &scrapeResult{backend: i, m: m})
	}
}

// recordScrape keeps a scrape taken at (Run clock) for the counter deltas
// and, when it succeeded, writes it to the results as an event.
func (s *scheduler) recordScrape(at time.Duration, sr *scrapeResult) {
	s.scrapes.add(sr.backend, sr.m)
	if sr.m.OK {
		s.results <- record{ev: scrapeEvent(at, sr)}
	}
}

func (s *scheduler) pollBackend(ctx context.Context, hc *http.Client, i int, url string) {
	t := time.NewTicker(s.o.ScrapeEvery)
	defer t.Stop()
	for {
		m, err := ScrapeOnce(ctx, hc, url)
		m.OK = err == nil
		select {
		case s.events <- event{scrape: &scrapeResult{backend: i, m: m}}:
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
// the server-side prefix hit rate over the Run is a counter delta.
type scrapeDeltas struct {
	first, last map[int]ServerMetrics
}

func (d *scrapeDeltas) add(i int, m ServerMetrics) {
	if !m.OK {
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
func (d *scrapeDeltas) extra() map[string]float64 {
	if len(d.last) == 0 {
		return nil
	}
	var q, h, pre float64
	for i, l := range d.last {
		f := d.first[i]
		q += l.PrefixQueries - f.PrefixQueries
		h += l.PrefixHits - f.PrefixHits
		pre += l.Preemptions - f.Preemptions
	}
	return MergeExtra(map[string]float64{"server_prefix_queries": q, "server_prefix_hits": h,
		"server_preemptions": pre}, d.mockExtra())
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
	return map[string]float64{ExtraMockLateP50: p50 * 1e6, ExtraMockLateP99: p99 * 1e6, ExtraMockLateMax: mx * 1e6,
		ExtraMockSteps: steps, ExtraMockLateScraped: 1}
}

// EventNumGPUBlocks is the scrape event value of vllm:cache_config_info's
// num_gpu_blocks label (present when the server exposes it).
const EventNumGPUBlocks = "num_gpu_blocks"

// scrapeEvent records one scrape for the per-backend report figures.
func scrapeEvent(now time.Duration, sr *scrapeResult) *Event {
	m := sr.m
	ev := &Event{At: now, Source: "scrape:" + strconv.Itoa(sr.backend), Values: map[string]float64{
		"prefix_cache_hits_total": m.PrefixHits, "prefix_cache_queries_total": m.PrefixQueries,
		"kv_cache_usage_perc": m.KVUsage, "num_requests_running": m.Running, "num_requests_waiting": m.Waiting}}
	if m.NumGPUBlocks > 0 {
		ev.Values[EventNumGPUBlocks] = float64(m.NumGPUBlocks)
	}
	return ev
}
