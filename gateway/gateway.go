package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tracebench/tracebench/replay"
)

// Gateway routes and passes through OpenAI-compatible requests. Build it
// with New, serve it with Serve (or mount Handler), and it records every
// request in Options.Results.
type Gateway struct {
	o Options
	// clock is the time base of every stamp, set by the first request.
	clock clock
	m     *metrics
	rt    *routing
	rec   *recorder
	// work ends when the grace period after a stop is over: it cuts the
	// requests still in flight.
	work       context.Context
	cancelWork context.CancelFunc
	// stopKV ends the KV event subscription and returns its stop extras.
	stopKV func() (map[string]float64, []string)
	// loops ends the discovery and scrape loops and waits for them.
	loops func()
	// active counts the requests being handled (see Serve).
	active sync.WaitGroup
}

// New builds a Gateway: its metrics, its Dispatcher over o's policy, its
// KV event subscription (a KV-event Router), and, with o.Discover or
// o.ScrapeEvery, the loops that keep the fleet view fresh; it checks
// each Backend's dialect (an unknown one is logged once and shown on
// /metrics). The loops run until Serve returns (or ctx ends).
func New(ctx context.Context, o Options) (*Gateway, error) {
	if len(o.Backends) == 0 {
		return nil, errors.New("gateway: no backends")
	}
	if o.Client == nil || o.Router == nil || o.Queue == nil {
		return nil, errors.New("gateway: Options.Client, Router and Queue are required")
	}
	if o.PD != nil {
		if err := o.PD.Validate(len(o.Backends)); err != nil {
			return nil, fmt.Errorf("gateway: %w", err)
		}
	}
	o = o.withDefaults()
	m, err := newMetrics(o.Registry, o.Backends)
	if err != nil {
		return nil, fmt.Errorf("gateway metrics: %w", err)
	}
	g := &Gateway{o: o, m: m}
	g.work, g.cancelWork = context.WithCancel(context.WithoutCancel(ctx))
	g.rec = newRecorder(&g.clock, o.Results, o.Requests, m)
	g.rt = newRouting(o, g.now, m, g.rec.events)
	if g.stopKV, err = replay.SubscribeKV(g.work, o.Router, o.Backends, o.KVEvents, o.KVListen); err != nil {
		g.cancelWork()
		return nil, fmt.Errorf("gateway: KV events: %w", err)
	}
	for i, u := range o.Backends {
		g.checkDialect(ctx, i, u)
	}
	g.loops = g.startLoops()
	return g, nil
}

// now is the gateway's clock (see clock).
func (g *Gateway) now() time.Duration { return g.clock.now() }

// Handler serves the OpenAI-compatible API (/v1/completions,
// /v1/chat/completions, /v1/models), /health and /metrics.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/completions", func(w http.ResponseWriter, r *http.Request) { g.serveAPI(w, r, false) })
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { g.serveAPI(w, r, true) })
	mux.HandleFunc("/v1/models", g.serveModels)
	mux.HandleFunc("/health", g.serveHealth)
	mux.Handle("/metrics", promhttp.HandlerFor(g.o.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path+
			" (the gateway serves /v1/completions, /v1/chat/completions, /v1/models, /health, /metrics)", "")
	})
	return mux
}

// backendName is how answers and logs name Backend i.
func backendName(i int) string { return "b" + strconv.Itoa(i) }
