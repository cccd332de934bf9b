package replay

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/tracebench/tracebench/results"
)

// DefaultResolveEvery is how often a Discovery re-resolves the fleet
// when its Every is 0 (10 s).
const DefaultResolveEvery = 10 * time.Second

// Discovery re-resolves a live fleet during a real-time Run, so Backends
// may join and leave mid-run (a headless Kubernetes Service whose pods
// come and go).
type Discovery struct {
	// Every is the interval between resolutions (0: DefaultResolveEvery).
	Every time.Duration
	// Resolve returns the fleet's current base URLs. An error or an empty
	// list keeps the fleet as it was (logged once per distinct error).
	Resolve func(ctx context.Context) ([]string, error)
}

// Event sources and value names of fleet changes in the results file.
const (
	// FleetEventPrefix starts the Source of a join or leave event; the
	// Backend's URL follows it ("fleet:http://10.0.0.7:8000").
	FleetEventPrefix = "fleet:"
	// FleetJoined is 1 when the Backend joined; FleetLeft when it left.
	FleetJoined = "joined"
	FleetLeft   = "left"
	// FleetBackend is the Backend's Index.
	FleetBackend = "backend"
)

// SyncFleet makes urls the live Backends. known holds the Backends' URLs
// by Index: a URL not live joins (a new Index, appended to known, or
// its old one when it comes back) and joined is called with its Index
// (fresh when new); then a live one not in urls leaves (its in-flight
// requests finish) and left is called.
func (d *Dispatcher) SyncFleet(known *[]string, urls []string, joined func(i int, url string, fresh bool),
	left func(i int, url string)) {
	for _, u := range urls {
		i, ok := d.Join(u)
		if !ok {
			continue
		}
		fresh := i == len(*known)
		if fresh {
			*known = append(*known, u)
		}
		joined(i, u, fresh)
	}
	for i, u := range *known {
		if !slices.Contains(urls, u) && d.Leave(i) {
			left(i, u)
		}
	}
}

// FleetEvent is the results-file Event of Backend i (url) joining or
// leaving (what: FleetJoined or FleetLeft) at now.
func FleetEvent(now time.Duration, i int, url, what string) results.Event {
	return results.Event{At: now, Source: FleetEventPrefix + url, Values: map[string]float64{what: 1, FleetBackend: float64(i)}}
}

// startDiscovery runs o.Discover's resolver every interval until ctx
// ends, sending each list to the scheduler.
func (s *scheduler) startDiscovery(ctx context.Context) {
	dv := s.o.Discover
	if dv == nil || dv.Resolve == nil {
		return
	}
	go dv.Watch(ctx, func(urls []string) bool {
		select {
		case s.events <- event{fleet: urls}:
			return true
		case <-ctx.Done():
			return false
		}
	})
}

// Watch resolves the fleet every Every until ctx ends (or apply returns
// false) and gives apply every resolution that found addresses; a failed
// or empty one keeps the fleet as it was and is logged once per distinct
// error.
func (dv *Discovery) Watch(ctx context.Context, apply func(urls []string) bool) {
	every := dv.Every
	if every <= 0 {
		every = DefaultResolveEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var lastErr string
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every)
		urls, err := dv.Resolve(rctx)
		cancel()
		if err != nil || len(urls) == 0 {
			if msg := resolveErrText(err); msg != lastErr {
				slog.Warn("re-resolving the fleet failed; keeping the backends as they are", "err", msg)
				lastErr = msg
			}
			continue
		}
		lastErr = ""
		if !apply(urls) {
			return
		}
	}
}

func resolveErrText(err error) string {
	if err == nil {
		return "no addresses"
	}
	return err.Error()
}

// applyFleet makes urls the live Backends: a URL not live joins (a new
// Index, or its old one when it comes back), a live one not in urls
// leaves (no new picks; its in-flight requests finish).
func (s *scheduler) applyFleet(now time.Duration, urls []string) {
	s.d.SyncFleet(&s.urls, urls, func(i int, u string, _ bool) {
		s.startPoller(i, u)
		s.results <- record{ev: ptr(FleetEvent(now, i, u, FleetJoined))}
		slog.Info("backend joined", "backend", backendID(i), "url", u, "at", now.Round(time.Millisecond))
	}, func(i int, u string) {
		s.results <- record{ev: ptr(FleetEvent(now, i, u, FleetLeft))}
		slog.Info("backend left", "backend", backendID(i), "url", u, "at", now.Round(time.Millisecond))
	})
}

func ptr[T any](v T) *T { return &v }
