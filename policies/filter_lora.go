package policies

import (
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterFilter(Spec{Name: "lora-affinity",
		Doc: "GIE LoRA affinity, before any Router: drop Backends with queue_threshold or more requests in flight " +
			"(unless all have), then keep those with the Request's adapter active (requests for it in flight); if " +
			"none, those with a free adapter slot (fewer than max_loras adapters in flight); if none, all; the Router " +
			"then picks among them. Requests without an adapter are not filtered",
		Needs:  []string{"lora", "in-flight"},
		Source: "Gateway API Inference Extension LoRA affinity filter (prefix-cache-aware-routing-proposal.md: \"prefix cache affinity algo should be applied after LoRA affinity\"); vLLM --max-loras",
		Params: []ParamSpec{
			{Name: "max_loras", Default: "1", Doc: "adapter slots per Backend, as the servers' --max-loras (vLLM's default 1)"},
			{Name: "queue_threshold", Default: "128", Doc: "Backends with this many requests in flight are dropped first (GIE's low-queue filter; QUEUING_THRESHOLD_LORA 128)"},
		},
	}, newLoRAAffinity)
}

// loraAffinity filters State.Backends by adapter before its inner Router
// picks. What is active on a Backend is the client's own count of the
// requests it has in flight there per adapter (what a server reports as
// running and waiting LoRA adapters).
type loraAffinity struct {
	inner    Router
	maxLoras int
	queueMax int
	inFlight map[int]map[string]int // Backend.Index -> adapter -> requests
	sentTo   map[*traces.Request]int
	kept     []Backend
	low      []Backend
}

// loraAffinityTokens is loraAffinity over a Router that takes token
// feedback, which it forwards.
type loraAffinityTokens struct{ *loraAffinity }

func newLoRAAffinity(p Params, inner Router) (Router, error) {
	n, err := p.Int("max_loras", 1, 1<<16)
	if err != nil {
		return nil, err
	}
	q, err := p.Int("queue_threshold", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	f := &loraAffinity{inner: inner, maxLoras: n, queueMax: q, inFlight: map[int]map[string]int{}, sentTo: map[*traces.Request]int{}}
	if _, ok := inner.(TokenFeedback); ok {
		return loraAffinityTokens{f}, nil
	}
	return f, nil
}

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
		if f.inFlight[b.Index][adapter] > 0 {
			f.kept = append(f.kept, b)
		}
	}
	if len(f.kept) == 0 {
		for _, b := range bs {
			if len(f.inFlight[b.Index]) < f.maxLoras {
				f.kept = append(f.kept, b)
			}
		}
	}
	if len(f.kept) == 0 {
		return bs
	}
	return f.kept
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
	if fb, ok := f.inner.(Feedback); ok {
		fb.Done(now, req, out)
	}
}

// Tokens implements TokenFeedback by forwarding.
func (f loraAffinityTokens) Tokens(now time.Duration, req *traces.Request, n int) {
	f.inner.(TokenFeedback).Tokens(now, req, n)
}
