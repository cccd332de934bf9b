package sim

import (
	"time"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/policies"
)

// simKV hands the simulated engines' block events to a KV-event
// router's index, each step's events visible Delay after the step
// starts (when vLLM's scheduler publishes them).
type simKV struct {
	idx     *kvevents.Index
	delay   time.Duration
	pending [][]kvevents.Event
}

// bindSimKV hooks the engines to r's index when r reads KV events.
func bindSimKV(r policies.Router, bs []simBackend, delay time.Duration) (*simKV, error) {
	kr, ok := policies.As[policies.KVEventRouter](r)
	if !ok {
		return nil, nil
	}
	idx, err := kr.BindKVEvents(len(bs))
	if err != nil {
		return nil, err
	}
	k := &simKV{idx: idx, delay: delay, pending: make([][]kvevents.Event, len(bs))}
	for i := range bs {
		bs[i].e.OnBlockEvent(func(ev engine.BlockEvent) { k.pending[i] = appendSimEvent(k.pending[i], ev) })
		idx.Note(i, func(s *kvevents.Stats) { s.Subscribed = true })
	}
	return k, nil
}

// appendSimEvent appends an engine block event to a step's events,
// merging consecutive evictions into one BlockRemoved as the mock's
// publisher does.
func appendSimEvent(evs []kvevents.Event, ev engine.BlockEvent) []kvevents.Event {
	if n := len(evs); n > 0 && ev.Kind == engine.BlocksRemoved && evs[n-1].Kind == kvevents.Removed {
		evs[n-1].Hashes = append(evs[n-1].Hashes, ev.Hashes...)
		return evs
	}
	return append(evs, simEvent(ev))
}

// simEvent converts an engine block event.
func simEvent(ev engine.BlockEvent) kvevents.Event {
	switch ev.Kind {
	case engine.BlocksStored:
		return kvevents.Event{Kind: kvevents.Stored, Hashes: ev.Hashes, Parent: ev.Parent, HasParent: ev.HasParent,
			Tokens: ev.Tokens, BlockSize: ev.BlockSize, Medium: kvevents.MediumGPU}
	case engine.BlocksRemoved:
		return kvevents.Event{Kind: kvevents.Removed, Hashes: ev.Hashes, Medium: kvevents.MediumGPU}
	}
	return kvevents.Event{Kind: kvevents.Cleared}
}

// flush delivers backend b's events of the step started at start.
func (k *simKV) flush(b int, start time.Duration) {
	if k == nil || len(k.pending[b]) == 0 {
		return
	}
	k.idx.Deliver(start+k.delay, b, kvevents.Decoded{Batch: kvevents.Batch{TS: start.Seconds(), Events: k.pending[b]}})
	k.pending[b] = nil
}
