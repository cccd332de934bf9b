package policies

import (
	"slices"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterFilter(Spec{Name: "lora-affinity",
		Doc: "GIE LoRA affinity, before any Router: drop Backends with queue_threshold or more requests in flight " +
			"(unless all have), then keep those with the Request's adapter active; if none, those with a free adapter " +
			"slot; if none, all; the Router then picks among them. With --scrape and servers that expose " +
			"vllm:lora_requests_info, active means among the server's running or waiting adapters and a free slot " +
			"means fewer running plus waiting adapters than its max_lora, as GIE reads them; otherwise the client's own " +
			"in-flight requests per adapter and the max_loras parameter stand in (the report says which was used). " +
			"Requests without an adapter are not filtered",
		Needs:  []string{"lora", "in-flight", "scrape (optional)"},
		Source: "Gateway API Inference Extension LoRA affinity filter (loRASoftAffinityFilterFunc: ActiveModels, WaitingModels, MaxActiveModels from vllm:lora_requests_info; GIE prefix-cache-aware routing proposal, https://github.com/kubernetes-sigs/gateway-api-inference-extension/blob/main/docs/proposals/005-prefix-cache-aware-routing-proposal/README.md: \"prefix cache affinity algo should be applied after LoRA affinity\"); vLLM --max-loras",
		Params: []ParamSpec{
			{Name: "max_loras", Kind: kInt, Default: traces.ParamInt(1), Doc: "adapter slots per Backend, as the servers' --max-loras (vLLM's default 1); used when no scraped max_lora is known"},
			{Name: "queue_threshold", Kind: kInt, Default: traces.ParamInt(128), Doc: "Backends with this many requests in flight are dropped first (GIE's low-queue filter; QUEUING_THRESHOLD_LORA 128)"},
		},
	}, newLoRAAffinity)
}

// loraAffinity filters State.Backends by adapter before its inner Router
// picks. What is active on a Backend is what the server last reported
// in vllm:lora_requests_info when it was scraped, else the client's own
// count of the requests it has in flight there per adapter.
type loraAffinity struct {
	inner    Router
	maxLoras int
	queueMax int
	inFlight map[int]map[string]int // Backend.Index -> adapter -> requests
	sentTo   map[*traces.Request]int
	kept     []Backend
	low      []Backend
	// serverViews and clientViews count the Backends judged, per
	// decision, from scraped server metrics and from client counts.
	serverViews, clientViews int64
}

// Stop.Extra keys of the filter's views (see StopExtras).
const (
	ExtraLoRAServerViews = "lora_affinity_server_views"
	ExtraLoRAClientViews = "lora_affinity_client_views"
)

func newLoRAAffinity(p Params, inner Router) (Router, error) {
	n, err := p.Int("max_loras", 1, 1<<16)
	if err != nil {
		return nil, err
	}
	q, err := p.Int("queue_threshold", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	return &loraAffinity{inner: inner, maxLoras: n, queueMax: q, inFlight: map[int]map[string]int{},
		sentTo: map[*traces.Request]int{}}, nil
}

// Unwrap implements Wrapper: the inner Router, whose optional interfaces
// (KV events, hit prediction, token feedback) the replay reaches through
// As.
func (f *loraAffinity) Unwrap() Router { return f.inner }

// Name implements Router: the inner Router's name.
func (f *loraAffinity) Name() string { return f.inner.Name() }

// Pick implements Router.
func (f *loraAffinity) Pick(req *traces.Request, st State) (Choice, error) {
	if req.LoRA != "" && len(st.Backends) > 1 {
		st.Backends = f.keep(req.LoRA, st.Backends)
	}
	ch, err := f.inner.Pick(req, st)
	if err == nil && req.LoRA != "" {
		f.sentTo[req] = ch.Backend
		m := f.inFlight[ch.Backend]
		if m == nil {
			m = map[string]int{}
			f.inFlight[ch.Backend] = m
		}
		m[req.LoRA]++
	}
	return ch, err
}

// keep returns, among the Backends under the queue threshold (all when
// none is), those with the adapter active, else those with a free slot,
// else all of them.
func (f *loraAffinity) keep(adapter string, bs []Backend) []Backend {
	f.low = f.low[:0]
	for _, b := range bs {
		if b.InFlight < f.queueMax {
			f.low = append(f.low, b)
		}
	}
	if len(f.low) > 0 {
		bs = f.low
	}
	f.kept = f.kept[:0]
	for _, b := range bs {
		if b.LoRAScraped {
			f.serverViews++
		} else {
			f.clientViews++
		}
		if f.active(b, adapter) {
			f.kept = append(f.kept, b)
		}
	}
	if len(f.kept) == 0 {
		for _, b := range bs {
			if f.hasSlot(b) {
				f.kept = append(f.kept, b)
			}
		}
	}
	if len(f.kept) == 0 {
		return bs
	}
	return f.kept
}

// active reports whether b serves adapter now: among the server's
// running or waiting adapters when scraped, else with requests of it in
// flight from this client.
func (f *loraAffinity) active(b Backend, adapter string) bool {
	if b.LoRAScraped {
		return slices.Contains(b.LoRARunning, adapter) || slices.Contains(b.LoRAWaiting, adapter)
	}
	return f.inFlight[b.Index][adapter] > 0
}

// hasSlot reports whether b can take one more adapter: fewer running
// plus waiting adapters than the server's max_lora (the max_loras
// parameter when the server gives none), or, unscraped, fewer adapters
// in flight from this client than max_loras.
func (f *loraAffinity) hasSlot(b Backend) bool {
	if b.LoRAScraped {
		limit := b.MaxLoRA
		if limit <= 0 {
			limit = f.maxLoras
		}
		return len(b.LoRARunning)+len(b.LoRAWaiting) < limit
	}
	return len(f.inFlight[b.Index]) < f.maxLoras
}

// StopExtras implements StopReporter: how many Backend views were read
// from server metrics and how many from client counts, with the inner
// Router's own figures.
func (f *loraAffinity) StopExtras() map[string]float64 {
	out := map[string]float64{}
	if sr, ok := As[StopReporter](f.inner); ok {
		for k, v := range sr.StopExtras() {
			out[k] = v
		}
	}
	out[ExtraLoRAServerViews], out[ExtraLoRAClientViews] = float64(f.serverViews), float64(f.clientViews)
	return out
}

// Done implements Feedback: the Request leaves its Backend's adapter
// count; the inner Router hears of it too.
func (f *loraAffinity) Done(now time.Duration, req *traces.Request, out Outcome) {
	if b, ok := f.sentTo[req]; ok {
		delete(f.sentTo, req)
		m := f.inFlight[b]
		if m[req.LoRA]--; m[req.LoRA] <= 0 {
			delete(m, req.LoRA)
		}
	}
	if fb, ok := As[Feedback](f.inner); ok {
		fb.Done(now, req, out)
	}
}
