package cli

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
func header(rs runSpec, ident string, pol builtPolicy) replay.Header {
	r, q := pol.router, pol.queue
	h := replay.Header{Version: replay.Version, Started: time.Now().UTC(), Policy: policyName(r.Name(), q.Name()),
		Router: r.Name(), RouterParams: pol.routerParams, Queue: q.Name(), QueueParams: pol.queueParams,
		Seed: rs.wf.Seed, Trace: ident, Mode: rs.mode, Backends: rs.backends, Shard: rs.wf.Shard,
		Config: map[string]any{"workload": rs.wf, "policy": rs.pf, "api": rs.cf.API, "model": rs.cf.Model,
			"stream": !rs.cf.NoStream, "scrape": rs.cf.Scrape, "scrape_interval": rs.cf.ScrapeInt.String(),
			"timeout": rs.cf.Timeout.String(), "grace": rs.cf.Grace.String(), "header_names": headerNames(rs.cf.Headers)}}
	if rs.fleet != nil {
		// The engine settings of the mock or simulated replicas (eviction
		// policy and LoRA limits included), so runs that differ only there
		// tell apart.
		h.Config["engine"] = *rs.fleet
	}
	return h
}

// dialectConfig adds the dialect and why it was chosen to a header's
// Config (nothing for simulated backends, which speak none).
func dialectConfig(h *replay.Header, cf clientFlags) {
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
