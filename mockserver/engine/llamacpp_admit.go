package engine

import (
	"slices"
	"time"
)

// serialAdmissions reports whether admissions run before the batch on
// their own, as llama-server's loop runs them: the per-slot cache with a
// priced save or restore (LlamaCppConfig).
func (e *Engine) serialAdmissions() bool {
	l := e.cfg.LlamaCpp
	return e.slots != nil && (l.SaveFixed > 0 || l.SavePerToken > 0 || l.RestoreFixed > 0 || l.RestorePerToken > 0)
}

// placeWaiting is llama-server's task loop before a batch
// (server_queue::start_loop, b7099): every queued request that finds a
// free slot takes it, with the slot's save to and restore from the host
// prompt cache, one after another, before update_slots builds the
// batch. It moves those requests to running with no tokens computed yet
// and appends their admission events to evs. When the placements cost
// time, that time is a step of its own (ok true): requests that arrive
// meanwhile are placed at the next Step before the batch runs, as the
// server drains its task queue until it is empty; a batch runs only
// once a Step places nothing that costs time.
func (e *Engine) placeWaiting(now time.Duration, evs []Event) (Step, []Event, bool) {
	adapters := e.runningAdapters()
	for i := 0; i < len(e.waiting) && len(e.running) < e.cfg.MaxNumSeqs; {
		s := e.waiting[i]
		if e.lora.blocked(s.req.LoRA, adapters) || e.pinnedBusy(s) {
			i++
			continue
		}
		first := !s.admitted
		if _, ok := e.admitSlot(s, 0); !ok {
			break
		}
		e.waiting = slices.Delete(e.waiting, i, i+1)
		e.running = append(e.running, s)
		if first {
			evs = append(evs, Event{ID: s.req.ID, Tag: s.req.Tag, Admitted: true, Slot: s.slot,
				CachedTokens: s.cached, QueueTime: max(0, now-s.arrival), SlotSaved: s.saved})
		}
	}
	if e.extra == 0 {
		return Step{}, evs, false
	}
	st := Step{Start: now, Duration: e.extra, Events: evs}
	e.extra = 0
	return st, evs, true
}

// slotBatchOrder orders the running requests as llama-server builds a
// batch (update_slots, b7099): every generating slot's decode token
// first, then the prompts still being processed in slot id order, each
// taking tokens until the batch holds n_batch (MaxNumBatchedTokens).
// Decoders keep their order among themselves.
func (e *Engine) slotBatchOrder() {
	key := func(s *seq) int {
		if s.numOutput() > 0 && s.computed == s.numTokens()-1 {
			return -1 // decoding
		}
		return s.slot
	}
	slices.SortStableFunc(e.running, func(a, b *seq) int { return key(a) - key(b) })
}
