package bench

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/results"
)

// header builds the results file's run header: the policies with every
// parameter they ran with (defaults, preset, environment, file, flags),
// the model actually sent and the client settings, with the names of
// extra headers but never their values or the API key.
func header(rs Spec, ident string, pol builtPolicy) results.Header {
	r, q := pol.router, pol.queue
	h := results.Header{Version: results.Version, Started: time.Now().UTC(), Policy: PolicyName(r.Name(), q.Name()),
		Router: r.Name(), RouterParams: pol.routerParams.Texts(), Queue: q.Name(), QueueParams: pol.queueParams.Texts(),
		Seed: rs.Workload.Seed, Trace: ident, Mode: rs.Mode, Backends: rs.Backends, Shard: rs.Workload.Shard,
		Config: results.RunConfig{Workload: rawJSON(rs.Workload), Policy: rawJSON(rs.Policy), API: rs.Client.API, Model: rs.Client.Model,
			Stream: new(!rs.Client.NoStream), Scrape: rs.Client.Scrape, ScrapeInterval: rs.Client.ScrapeInt.String(),
			Timeout: rs.Client.Timeout.String(), Grace: rs.Client.Grace.String(), HeaderNames: headerNames(rs.Client.Headers),
			// The engine settings of the mock or simulated replicas
			// (eviction policy and LoRA limits included), so runs that
			// differ only there tell apart.
			Engine: engineJSON(rs)}}
	if rs.pd != nil {
		h.Roles = rs.pd.Roles
		h.Config.PD = rawJSON(rs.PD)
	}
	return h
}

// dialectConfig adds the dialect and why it was chosen to a header's
// Config (nothing for simulated backends, which speak none).
func dialectConfig(h *results.Header, cf Client) {
	if cf.dialect == nil {
		return
	}
	h.Config.Dialect, h.Config.DialectReason = cf.dialect.Name, cf.dialectWhy
}

// rawJSON is v as JSON, for the header's raw config parts. The values
// given (Workload, Policy) hold only strings, numbers and lists, which
// always encode.
func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// engineJSON is the Run's engine configuration for the header (nil
// without mock or simulated engines).
func engineJSON(rs Spec) json.RawMessage {
	if rs.Fleet == nil {
		return nil
	}
	return rawJSON(rs.Fleet)
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
