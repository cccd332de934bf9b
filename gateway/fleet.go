package gateway

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// checkDialect asks Backend i at url which dialect it speaks; one that
// answers in none tracebench knows is logged once and marked on
// /metrics (its answers may carry no cached-token count).
func (g *Gateway) checkDialect(ctx context.Context, i int, url string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	det, err := dialect.Detect(ctx, g.o.HTTP, url)
	if err != nil {
		slog.Warn("gateway: cannot tell the backend's dialect", "backend", backendName(i), "url", url, "err", err)
		return
	}
	if det.Dialect.Name != dialect.OpenAI {
		return
	}
	g.m.setUnknown(i)
	slog.Warn("gateway: backend answers in a dialect tracebench does not know; its cached prompt tokens may be "+
		"missing from the results ("+MetricUnknownDialect+" = 1)",
		"backend", backendName(i), "url", url, "why", det.Reason)
}

// startLoops starts fleet discovery and /metrics scraping as configured
// and returns the function that stops them and waits.
func (g *Gateway) startLoops() func() {
	ctx, cancel := context.WithCancel(g.work)
	var wg sync.WaitGroup
	if dv := g.o.Discover; dv != nil && dv.Resolve != nil {
		wg.Go(func() {
			dv.Watch(ctx, func(urls []string) bool {
				g.applyFleet(ctx, urls)
				return true
			})
		})
	}
	if g.o.ScrapeEvery > 0 {
		wg.Go(func() { g.scrapeLoop(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}

// applyFleet makes urls the live Backends, as a replay's discovery does:
// a URL not live joins, a live one not in urls leaves (its in-flight
// requests finish). Joins and leaves are results-file Events.
func (g *Gateway) applyFleet(ctx context.Context, urls []string) {
	r := g.rt
	r.mu.Lock()
	now := g.now()
	var evs []results.Event
	var fresh []int // new Indexes
	r.d.SyncFleet(&r.urls, urls, func(i int, u string, isNew bool) {
		if isNew {
			g.m.join(u)
			fresh = append(fresh, i)
		}
		evs = append(evs, replay.FleetEvent(now, i, u, replay.FleetJoined))
		slog.Info("backend joined", "backend", backendName(i), "url", u)
	}, func(i int, u string) {
		evs = append(evs, replay.FleetEvent(now, i, u, replay.FleetLeft))
		slog.Info("backend left", "backend", backendName(i), "url", u)
	})
	r.pump(now) // requests held while no backend was live may go now
	r.mu.Unlock()
	g.rec.events(evs)
	for _, i := range fresh {
		g.checkDialect(ctx, i, g.m.urls[i])
	}
}

// scrapeLoop scrapes every live Backend's /metrics each ScrapeEvery and
// gives the figures to the Router's view of the fleet.
func (g *Gateway) scrapeLoop(ctx context.Context) {
	t := time.NewTicker(g.o.ScrapeEvery)
	defer t.Stop()
	d := g.o.Client.Options().Dialect
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		g.rt.mu.Lock()
		urls := slices.Clone(g.rt.urls)
		g.rt.mu.Unlock()
		for i, u := range urls {
			m, err := replay.Scrape(ctx, g.o.HTTP, u, d)
			m.OK = err == nil
			g.rt.mu.Lock()
			g.rt.d.Tracker().OnScrape(i, m)
			g.rt.mu.Unlock()
		}
	}
}
