package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// KVEventsOptions make a replica publish its prefix cache changes as
// vLLM does with --kv-events-config '{"enable_kv_cache_events": true,
// "publisher": "zmq", ...}': msgpack batches on a ZeroMQ PUB socket and a
// ROUTER socket replaying missed batches.
type KVEventsOptions struct {
	// Endpoint is the PUB socket's bind address, for example
	// "tcp://127.0.0.1:9000" (empty: no events; port 0: any free port).
	Endpoint string
	// Replay is the replay socket's bind address (empty: none).
	Replay string
	// Topic is every message's first frame (default "", vLLM's).
	Topic string
	// Connect dials Endpoint, a consumer's bound SUB socket, instead of
	// binding it (llm-d's wiring); the replay socket is bound either way.
	Connect bool
	// Encoding writes events as positional arrays (default, vLLM's) or
	// named-field maps.
	Encoding kvevents.Encoding
}

// kvPublisher collects one engine step's block events and publishes them
// as one batch.
type kvPublisher struct {
	pub     *kvevents.Publisher
	pending []kvevents.Event
}

// startKVEvents binds the publisher and hooks it to the engine.
func (s *Server) startKVEvents(eng *engine.Engine) error {
	o := s.opts.KVEvents
	if o.Endpoint == "" {
		return nil
	}
	pub, err := kvevents.NewPublisher(o.Endpoint, o.Replay, kvevents.PublisherOptions{Topic: o.Topic,
		Connect: o.Connect, Encoding: o.Encoding})
	if err != nil {
		return fmt.Errorf("mock server: %w", err)
	}
	kp := &kvPublisher{pub: pub}
	eng.OnBlockEvent(kp.collect)
	s.kv, s.drv.afterStep = kp, kp.flush
	return nil
}

// KVEventEndpoints returns the bound PUB and replay endpoints (empty
// when the replica publishes no events).
func (s *Server) KVEventEndpoints() (pub, replay string) {
	if s.kv == nil {
		return "", ""
	}
	return s.kv.pub.Endpoints()
}

// collect converts one engine block event (called under the driver lock).
func (k *kvPublisher) collect(ev engine.BlockEvent) {
	out := kvevents.Event{Hashes: ev.Hashes, Medium: kvevents.MediumGPU}
	switch ev.Kind {
	case engine.BlocksStored:
		out.Kind, out.Parent, out.HasParent = kvevents.Stored, ev.Parent, ev.HasParent
		out.Tokens, out.BlockSize = ev.Tokens, ev.BlockSize
	case engine.BlocksRemoved:
		out.Kind = kvevents.Removed
		if n := len(k.pending); n > 0 && k.pending[n-1].Kind == kvevents.Removed {
			k.pending[n-1].Hashes = append(k.pending[n-1].Hashes, ev.Hashes...)
			return
		}
	case engine.BlocksCleared:
		out = kvevents.Event{Kind: kvevents.Cleared}
	}
	k.pending = append(k.pending, out)
}

// flush publishes the collected events as one batch (under the driver
// lock, right after the step that made them, as vLLM's scheduler does).
func (k *kvPublisher) flush() {
	if len(k.pending) == 0 {
		return
	}
	k.pub.Publish(kvevents.Batch{TS: float64(time.Now().UnixNano()) / 1e9, Events: k.pending})
	k.pending = nil
}

func (k *kvPublisher) close() {
	if k != nil {
		_ = k.pub.Close()
	}
}

// handleResetPrefixCache is vLLM's POST /reset_prefix_cache: it empties
// the prefix cache (publishing AllBlocksCleared), or answers 400 while
// requests hold blocks.
func (s *Server) handleResetPrefixCache(w http.ResponseWriter, _ *http.Request) {
	s.drv.mu.Lock()
	ok := s.drv.eng.ResetPrefixCache()
	if ok && s.drv.afterStep != nil {
		s.drv.afterStep()
	}
	s.drv.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "requests are running: prefix cache not reset"})
		return
	}
	w.WriteHeader(http.StatusOK)
}
