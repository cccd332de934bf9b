package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// Serve answers on ln until ctx ends (SIGTERM, Ctrl-C) or the listener
// fails. Then it stops accepting, lets in-flight requests finish for
// Options.Grace, cuts the rest (recorded as canceled), and returns the
// stop line for the results file: reason "done" when every request
// finished within the grace period, "interrupted" when some were cut.
// Every request it accepted is in Options.Results by then.
func (g *Gateway) Serve(ctx context.Context, ln net.Listener) (results.Stop, error) {
	srv := &http.Server{Handler: g.counted(g.Handler()), ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	reason := g.drain(srv)
	stop := g.close(reason)
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		stop.Reason = results.StopError(serveErr)
		return stop, fmt.Errorf("gateway: serve: %w", serveErr)
	}
	return stop, nil
}

// counted tracks the requests being handled, so drain can wait until
// each is recorded.
func (g *Gateway) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.active.Add(1)
		defer g.active.Done()
		h.ServeHTTP(w, r)
	})
}

// drain stops accepting and waits up to the grace period for in-flight
// requests; then it cuts them and waits until each is recorded.
func (g *Gateway) drain(srv *http.Server) results.StopReason {
	sctx, cancel := context.WithTimeout(context.Background(), g.o.Grace)
	defer cancel()
	reason := results.StopDone
	if err := srv.Shutdown(sctx); err != nil {
		reason = results.StopInterrupted
		slog.Warn("gateway: requests still in flight after the grace period are cut (recorded as canceled)",
			"grace", g.o.Grace)
	}
	g.cancelWork()
	_ = srv.Close()
	g.active.Wait()
	return reason
}

// close ends the loops and the KV subscription, flushes the requests
// trace and returns the stop line with the policies' and the KV
// streams' figures. Its Elapsed is the span of the requests, from the
// first arrival to the last end: the time the gateway idled before and
// after them is no part of the run its throughput is measured over.
func (g *Gateway) close(reason results.StopReason) results.Stop {
	g.cancelWork()
	g.loops()
	kvx, notes := g.stopKV()
	if err := g.rec.flush(); err != nil {
		notes = append(notes, "the requests trace is incomplete: "+err.Error())
	}
	g.rt.mu.Lock()
	extra := replay.MergeExtra(kvx, g.rt.d.PolicyExtra())
	g.rt.mu.Unlock()
	return results.Stop{Reason: reason, Elapsed: g.rec.lastDone(), Extra: extra, Notes: notes}
}
