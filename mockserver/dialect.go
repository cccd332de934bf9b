package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/tracebench/tracebench/dialect"
)

// The mock answers in one server dialect (Options.Dialect, default
// vLLM): /v1/models names the owner a client detects the dialect by
// (llama.cpp also sends "Server: llama.cpp"); usage carries the cached
// prompt tokens where that server puts them (vLLM and SGLang:
// prompt_tokens_details.cached_tokens; llama.cpp b7099:
// timings.cache_n; plain OpenAI: none); /metrics uses the dialect's
// metric names (none for plain OpenAI), with llama.cpp's prompt counter
// counting computed tokens only, as llama-server's does; and the
// dialect's cache flush empties the engine's prefix cache
// (handleResetPrefixCache: 400 while requests hold blocks).

// owner is /v1/models' owned_by for the dialect d (a dialect name, as
// Options.validate requires): the name itself, which a client's
// dialect.Detect looks up, save for plain OpenAI, whose servers name no
// known owner ("tracebench-mock").
func owner(d string) string {
	if d == dialect.OpenAI {
		return "tracebench-mock"
	}
	return d
}

// dialectRoutes adds the dialect's metrics and flush endpoints.
func (s *Server) dialectRoutes() {
	d := s.opts.Dialect
	metrics := promhttp.HandlerFor(s.met.reg, promhttp.HandlerOpts{})
	switch d {
	case dialect.OpenAI:
		return // no metrics, no flush
	case dialect.SGLang, dialect.LlamaCpp:
		metrics = renamedMetrics(s.met.reg, d)
	}
	s.mux.Handle("GET /metrics", metrics)
	switch d {
	case dialect.SGLang:
		s.mux.HandleFunc("POST /flush_cache", s.handleResetPrefixCache)
		s.mux.HandleFunc("GET /flush_cache", s.handleResetPrefixCache)
	case dialect.LlamaCpp:
		s.mux.HandleFunc("GET /slots", s.handleSlots)
		s.mux.HandleFunc("GET /props", s.handleProps)
		s.mux.HandleFunc("POST /slots/{id}", s.handleSlotAction)
	default:
		s.mux.HandleFunc("POST /reset_prefix_cache", s.handleResetPrefixCache)
	}
}

// mockSlots is the number of slots the llama.cpp dialect lists: the
// engine's batch size stands for llama-server's -np.
func (s *Server) mockSlots() int { return max(1, min(s.opts.Engine.MaxNumSeqs, 64)) }

// handleSlots lists llama.cpp slots (ids and whether any request runs).
func (s *Server) handleSlots(w http.ResponseWriter, _ *http.Request) {
	busy := s.drv.stats().Running > 0
	var b bytes.Buffer
	b.WriteByte('[')
	for i := range s.mockSlots() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"n_ctx":%d,"is_processing":%t}`, i, s.opts.Engine.MaxModelLen, busy && i == 0)
	}
	b.WriteByte(']')
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

// handleProps serves the part of llama-server's GET /props that says how
// the server was started: its slots (-np) and context per slot.
func (s *Server) handleProps(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"total_slots":%d,"default_generation_settings":{"n_ctx":%d}}`, s.mockSlots(), s.opts.Engine.MaxModelLen)
}

// handleSlotAction serves POST /slots/{id}?action=erase: the mock's
// cache is shared by all slots, so erasing any slot empties it (the
// client erases every slot in turn).
func (s *Server) handleSlotAction(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil || id < 0 || id >= s.mockSlots() || r.URL.Query().Get("action") != "erase" {
		http.Error(w, `{"error":{"code":400,"message":"Invalid slot or action","type":"invalid_request_error"}}`,
			http.StatusBadRequest)
		return
	}
	s.handleResetPrefixCache(w, r)
}

// renamedMetrics serves the registry's page under the dialect's names:
// each vLLM figure the dialect has is renamed to the dialect's first
// name for it; other vllm: series are dropped; the mock's own
// (tracebench_mock_*) are kept.
func renamedMetrics(reg *prometheus.Registry, name string) http.Handler {
	d, _ := dialect.Lookup(name)
	v, _ := dialect.Lookup(dialect.VLLM)
	rename := map[string]string{}
	pairs := [][2][]string{{v.Metrics.Running, d.Metrics.Running}, {v.Metrics.Waiting, d.Metrics.Waiting},
		{v.Metrics.KVUsage, d.Metrics.KVUsage}, {v.Metrics.PrefixHits, d.Metrics.PrefixHits},
		{v.Metrics.GenerationTokens, d.Metrics.GenerationTokens}, {v.Metrics.Preemptions, d.Metrics.Preemptions}}
	if !d.Metrics.PromptComputedOnly {
		pairs = append(pairs, [2][]string{v.Metrics.PromptTokens, d.Metrics.PromptTokens})
	}
	for _, p := range pairs {
		if len(p[1]) > 0 {
			rename[p[0][0]] = p[1][0]
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fams, err := reg.Gather()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out := renameFamilies(fams, rename, d.Metrics)
		w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
		enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, f := range out {
			_ = enc.Encode(f)
		}
	})
}

// renameFamilies applies rename; with m.PromptComputedOnly it adds the
// prompt counter as computed tokens: vLLM's prompt tokens less the
// prefix hits.
func renameFamilies(fams []*dto.MetricFamily, rename map[string]string, m dialect.Metrics) []*dto.MetricFamily {
	var out []*dto.MetricFamily
	byName := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		byName[f.GetName()] = f
		if to, ok := rename[f.GetName()]; ok {
			f.Name = &to
			out = append(out, f)
		} else if !bytes.HasPrefix([]byte(f.GetName()), []byte("vllm:")) {
			out = append(out, f)
		}
	}
	if m.PromptComputedOnly && len(m.PromptTokens) > 0 {
		if prompt := byName["vllm:prompt_tokens_total"]; prompt != nil {
			out = append(out, computedPrompt(m.PromptTokens[0], prompt, byName["vllm:prefix_cache_hits_total"]))
		}
	}
	return out
}

// computedPrompt is a counter named name: each of prompt's samples less
// the hits sample at the same position (the mock labels both by model
// only, in the same order).
func computedPrompt(name string, prompt, hits *dto.MetricFamily) *dto.MetricFamily {
	typ := dto.MetricType_COUNTER
	help := "Number of prompt tokens processed (computed; cache hits excluded)."
	f := &dto.MetricFamily{Name: &name, Help: &help, Type: &typ}
	for i, mt := range prompt.GetMetric() {
		v := mt.GetCounter().GetValue()
		if hm := hits.GetMetric(); i < len(hm) {
			v -= hm[i].GetCounter().GetValue()
		}
		v = max(v, 0)
		f.Metric = append(f.Metric, &dto.Metric{Label: mt.GetLabel(), Counter: &dto.Counter{Value: &v}})
	}
	return f
}
