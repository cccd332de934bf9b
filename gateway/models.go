package gateway

import (
	"io"
	"net/http"
	"slices"
	"strings"
)

// maxModelsBody bounds a backend's /v1/models answer passed on (4 MiB).
const maxModelsBody = 4 << 20

// serveModels answers GET /v1/models with the first live backend's own
// answer, so a client sees the served models and their owner (which
// tells tracebench's replay the servers' dialect).
func (g *Gateway) serveModels(w http.ResponseWriter, r *http.Request) {
	if !g.authorized(r) {
		writeError(w, http.StatusUnauthorized, "missing or wrong API key (Authorization: Bearer KEY)", "")
		return
	}
	var last error
	for _, u := range g.liveURLs() {
		req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, baseURL(u)+"/v1/models", nil)
		if err != nil {
			last = err
			continue
		}
		req.Header.Set("Accept", "application/json")
		resp, err := g.o.HTTP.Do(req)
		if err != nil {
			last = err
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody))
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			last = err
			continue
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return
	}
	msg := "no backend answered /v1/models"
	if last != nil {
		msg += ": " + last.Error()
	}
	writeError(w, http.StatusBadGateway, msg, "")
}

// serveHealth answers 200 while the fleet has a live backend, else 503.
func (g *Gateway) serveHealth(w http.ResponseWriter, _ *http.Request) {
	if len(g.liveURLs()) == 0 {
		writeError(w, http.StatusServiceUnavailable, "no live backend", "")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, "ok\n")
}

// liveURLs are the base URLs of the Backends in the fleet now.
func (g *Gateway) liveURLs() []string {
	g.rt.mu.Lock()
	defer g.rt.mu.Unlock()
	st := g.rt.d.Tracker().Snapshot(0)
	out := make([]string, 0, len(st.Backends))
	for _, b := range st.Backends {
		out = append(out, b.URL)
	}
	return slices.Clip(out)
}

// baseURL normalises a backend address as the client does: no trailing
// slash and no "/v1" suffix.
func baseURL(u string) string {
	return strings.TrimSuffix(strings.TrimRight(u, "/"), "/v1")
}
