package predict

import (
	"fmt"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// SpecFromResults rebuilds the Spec of a run from the header of its
// results file at path: the workload as recorded, the router and queue
// with every parameter as resolved, and the API. Backends, client and
// fleet are left for the caller. It returns the header too.
func SpecFromResults(path string) (bench.Spec, results.Header, error) {
	var rs bench.Spec
	// Results files written before closed-loop sessions record no
	// Sessions: their runs sent every turn at its trace time.
	rs.Workload.Sessions.Pacing = string(replay.SessionsOpen)
	h, err := results.ReadHeader(path, results.HeaderPart{Name: "workload", Into: &rs.Workload},
		results.HeaderPart{Name: "policy", Into: &rs.Policy})
	if err != nil {
		return rs, h, err
	}
	if len(h.Backends) == 0 {
		return rs, h, fmt.Errorf("results file %s line 1: field header.backends: lists no backends", path)
	}
	rs.Workload.Trace = besideResults(rs.Workload.Trace, path)
	rs.Policy.PolicyConfig = ""
	rs.Policy.Router, rs.Policy.Queue = h.Router, h.Queue
	rs.Policy.RouterArgs = policies.ArgsOf(policies.KindRouter, h.Router, h.RouterParams)
	rs.Policy.QueueArgs = policies.ArgsOf(policies.KindQueue, h.Queue, h.QueueParams)
	rs.Client.API = h.Config.API
	if rs.Client.API == "" {
		rs.Client.API = "completions"
	}
	return rs, h, nil
}

// servedBy is who served a run: the header's config.server.owned_by,
// else its dialect ("" for a simulated or mock run).
func servedBy(h results.Header) string {
	if s := h.Config.Server; s != nil && s.OwnedBy != "" {
		return s.OwnedBy
	}
	if h.Mode == results.ModeSim || h.Mode == results.ModeMock {
		return ""
	}
	return h.Config.Dialect
}

// checkCacheModel refuses a profile whose cache model cannot describe
// the server of the run at path: per-slot (llama.cpp's slots) against
// vLLM or SGLang, whose paged prefix cache shares blocks across every
// request. A paged-prefix profile against llama.cpp is allowed with a
// note: it shares prefixes across slots as llama.cpp's host cache
// partly does, so hits come out too high.
func checkCacheModel(p *profile.Profile, h results.Header, path string) (string, error) {
	server, cache := servedBy(h), p.Engine.Cache
	if cache == "" {
		cache = profile.CachePagedPrefix
	}
	switch {
	case p.LlamaCppFamily() && (server == dialect.VLLM || server == dialect.SGLang):
		return "", bench.FieldErrorf("PredictSpec.Profile", "profile %s is a llama.cpp-family profile (cache model %s) that describes llama.cpp's slots, but %s was served by %s, "+
			"whose paged prefix cache it cannot describe: calibrate with CalibrateOptions.Cache %s", p.Name, cache, path, server, profile.CachePagedPrefix)
	case cache == profile.CachePagedPrefix && server == dialect.LlamaCpp:
		return fmt.Sprintf("profile %s: cache model %s shares every cached prefix across the server, while llama.cpp, which served %s, "+
			"keeps one prompt per slot: predicted hits may run high (calibrate with CalibrateOptions.Cache %s)", p.Name, cache, path, profile.CachePerSlot), nil
	}
	return "", nil
}
