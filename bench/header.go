package bench

import (
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/replay"
)

// header builds the results file's run header: the policies with every
// parameter they ran with (defaults, preset, environment, file, flags),
// the model actually sent and the client settings, with the names of
// extra headers but never their values or the API key.
func header(rs Spec, ident string, pol builtPolicy) replay.Header {
	r, q := pol.router, pol.queue
	h := replay.Header{Version: replay.Version, Started: time.Now().UTC(), Policy: PolicyName(r.Name(), q.Name()),
		Router: r.Name(), RouterParams: pol.routerParams, Queue: q.Name(), QueueParams: pol.queueParams,
		Seed: rs.Workload.Seed, Trace: ident, Mode: rs.Mode, Backends: rs.Backends, Shard: rs.Workload.Shard,
		Config: map[string]any{"workload": rs.Workload, "policy": rs.Policy, "api": rs.Client.API, "model": rs.Client.Model,
			"stream": !rs.Client.NoStream, "scrape": rs.Client.Scrape, "scrape_interval": rs.Client.ScrapeInt.String(),
			"timeout": rs.Client.Timeout.String(), "grace": rs.Client.Grace.String(), "header_names": headerNames(rs.Client.Headers)}}
	if rs.pd != nil {
		h.Roles = rs.pd.Roles
		h.Config["pd"] = rs.PD
	}
	if rs.Fleet != nil {
		// The engine settings of the mock or simulated replicas (eviction
		// policy and LoRA limits included), so runs that differ only there
		// tell apart.
		h.Config["engine"] = *rs.Fleet
	}
	return h
}

// dialectConfig adds the dialect and why it was chosen to a header's
// Config (nothing for simulated backends, which speak none).
func dialectConfig(h *replay.Header, cf Client) {
	if cf.dialect == nil {
		return
	}
	h.Config["dialect"], h.Config["dialect_reason"] = cf.dialect.Name, cf.dialectWhy
}

// headerNames returns the names of the --header flags, sorted.
func headerNames(hs []string) []string {
	names := []string{}
	for _, h := range hs {
		if k, _, ok := strings.Cut(h, ":"); ok {
			names = append(names, strings.TrimSpace(k))
		}
	}
	slices.Sort(names)
	return names
}
