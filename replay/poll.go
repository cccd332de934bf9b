package replay

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// startScrape polls every Backend's /metrics each ScrapeEvery and sends
// the figures to the scheduler. It returns a function that stops polling
// and waits for the pollers to exit.
func (s *scheduler) startScrape(ctx context.Context) func() {
	if s.o.ScrapeEvery <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	hc := &http.Client{Timeout: s.o.ScrapeEvery}
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

// extra returns the summed deltas for the stop record (nil: no scrapes).
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
	return map[string]float64{"server_prefix_queries": q, "server_prefix_hits": h, "server_preemptions": pre}
}

// scrapeEvent records one scrape for the per-backend report figures.
func scrapeEvent(now time.Duration, sr *scrapeResult) *Event {
	m := sr.m
	return &Event{At: now, Source: "scrape:" + strconv.Itoa(sr.backend), Values: map[string]float64{
		"prefix_cache_hits_total": m.PrefixHits, "prefix_cache_queries_total": m.PrefixQueries,
		"kv_cache_usage_perc": m.KVUsage, "num_requests_running": m.Running, "num_requests_waiting": m.Waiting}}
}
