package engine

import (
	"slices"
	"time"
)

// planned is one request's share of a step: n tokens to compute.
type planned struct {
	s        *seq
	n        int
	admitted bool // first admission of the request
}

// Step runs one iteration starting at now and returns its duration and
// events, which take effect at now + Duration. Like vLLM V1's scheduler
// it first gives the running requests their tokens in admission order
// (decode: 1, unfinished prefill: a chunk), preempting the newest running
// request while blocks are short, then — unless it preempted — admits
// waiting requests in FCFS order while MaxNumSeqs and the token budget
// allow, each taking its prefix-cache hit first. In Static mode requests
// are admitted only when the running batch is empty. A step with no work
// returns Duration 0 and no events.
func (e *Engine) Step(now time.Duration) Step { return e.StepInto(now, nil) }

// StepInto is Step writing the events into evs[:0]'s array when it is
// large enough, so a caller done with a step's events before the next
// step can reuse one slice for all of them.
func (e *Engine) StepInto(now time.Duration, evs []Event) Step {
	e.clock = max(e.clock, now)
	budget := e.cfg.MaxNumBatchedTokens
	mayAdmit := e.cfg.Batching == Continuous || len(e.running) == 0
	evs = evs[:0]
	if mayAdmit && e.serialAdmissions() {
		st, placed, alone := e.placeWaiting(now, evs)
		if alone {
			return st
		}
		evs = placed
	}
	plan, evs, preempted := e.scheduleRunning(now, &budget, evs)
	if !preempted && mayAdmit {
		plan = e.scheduleWaiting(now, &budget, plan)
	}
	e.plan = plan
	return e.execute(now, plan, evs)
}

// scheduleRunning plans the running requests' tokens and preempts.
func (e *Engine) scheduleRunning(now time.Duration, budget *int, evs []Event) ([]planned, []Event, bool) {
	clear(e.plan) // drop the last step's request pointers
	plan := e.plan[:0]
	preempted := false
	if e.slots != nil {
		e.slotBatchOrder()
	}
	for i := 0; i < len(e.running) && *budget > 0; i++ {
		s := e.running[i]
		n := min(s.numTokens()-s.computed, *budget)
		for n > 0 && !e.grow(s, n) {
			victim := e.running[len(e.running)-1]
			e.preempt(victim, now)
			evs = append(evs, Event{ID: victim.req.ID, Tag: victim.req.Tag, Preempted: true, NumOutput: victim.numOutput(), Slot: -1})
			preempted = true
			if victim == s {
				n = 0
			}
		}
		if n > 0 {
			plan = append(plan, planned{s: s, n: n})
			*budget -= n
		}
	}
	return plan, evs, preempted
}

// scheduleWaiting admits waiting requests in order until one does not
// fit, skipping (and leaving in place) those whose LoRA adapter cannot
// join the running ones, as vLLM V1 does, and those that name a busy
// slot, as llama.cpp defers them.
func (e *Engine) scheduleWaiting(now time.Duration, budget *int, plan []planned) []planned {
	adapters := e.runningAdapters()
	for i := 0; i < len(e.waiting) && len(e.running) < e.cfg.MaxNumSeqs; {
		if *budget == 0 && e.cfg.Batching == Continuous {
			break
		}
		s := e.waiting[i]
		if e.lora.blocked(s.req.LoRA, adapters) || e.pinnedBusy(s) {
			i++
			continue
		}
		first := !s.admitted
		n, ok := e.admit(s, *budget)
		if !ok {
			break
		}
		e.waiting = slices.Delete(e.waiting, i, i+1)
		e.running = append(e.running, s)
		e.extra += e.lora.load(s.req.LoRA, adapters)
		if s.req.LoRA != "" {
			adapters[s.req.LoRA]++
		}
		plan = append(plan, planned{s: s, n: n, admitted: first})
		*budget -= n
	}
	return plan
}

// runningAdapters counts the running requests per LoRA adapter.
func (e *Engine) runningAdapters() map[string]int {
	out := map[string]int{}
	for _, s := range e.running {
		if s.req.LoRA != "" {
			out[s.req.LoRA]++
		}
	}
	return out
}

// admit takes s's prefix-cache hit and blocks for a first chunk of at
// most budget tokens. It reports the chunk and false when blocks are short.
func (e *Engine) admit(s *seq, budget int) (int, bool) {
	if e.slots != nil {
		return e.admitSlot(s, budget)
	}
	bs := e.cfg.BlockSize
	// vLLM: only whole blocks hit, and the last token is always computed.
	hits := e.pool.lookup(e.hits[:0], s.blockHashes((s.numTokens()-1)/bs, bs), s.runs)
	e.hits = hits
	local := len(hits) * bs
	computed := max(local, s.remote())
	n := min(s.numTokens()-computed, budget)
	need := e.cfg.blocksFor(computed+n) - len(hits)
	idleHits := 0
	for _, id := range hits {
		if e.pool.idle(id) {
			idleHits++
		}
	}
	if e.pool.available()-idleHits < need {
		return 0, false
	}
	for _, id := range hits {
		e.pool.acquire(id)
	}
	s.blocks = append(s.blocks[:0], hits...)
	for range need {
		s.blocks = append(s.blocks, e.pool.allocate())
	}
	s.computed, s.registered, s.running = computed, len(hits), true
	e.countLookup(s, local)
	if computed > local {
		// Reported as cached, as vLLM counts external tokens in a
		// request's num_cached_tokens; not a local prefix-cache hit.
		e.stats.RemoteTokens += int64(computed - local)
		s.cached = computed
	}
	return n, true
}

// remote is the prompt tokens s takes from a remote prefill at its first
// admission: Request.RemoteTokens, short of the last token, which is
// computed to sample the first output token (0 once admitted: after a
// preemption the transferred KV is gone and is computed locally).
func (s *seq) remote() int {
	if s.admitted || s.req.RemoteTokens <= 0 {
		return 0
	}
	return min(s.req.RemoteTokens, s.promptLen-1)
}

// countLookup updates the prefix-cache counters for an admission.
func (e *Engine) countLookup(s *seq, hit int) {
	if s.admitted {
		e.stats.RecomputeQueries += int64(s.numTokens())
		e.stats.RecomputeHits += int64(hit)
		return
	}
	s.admitted, s.cached = true, hit
	e.stats.PrefixQueries += int64(s.numTokens())
	e.stats.PrefixHits += int64(hit)
}

// grow gives s the blocks for n more computed tokens, if available.
func (e *Engine) grow(s *seq, n int) bool {
	need := e.cfg.blocksFor(s.computed+n) - len(s.blocks)
	if need <= 0 {
		return true
	}
	if e.pool.available() < need {
		return false
	}
	for range need {
		s.blocks = append(s.blocks, e.pool.allocate())
	}
	return true
}

// preempt moves running request s back to the front of the waiting
// queue, freeing its blocks (recompute preemption).
func (e *Engine) preempt(s *seq, now time.Duration) {
	e.running = removeSeq(e.running, s)
	e.freeBlocks(s, now)
	e.releaseSlot(s)
	s.computed, s.registered, s.running = 0, 0, false
	e.waiting = append([]*seq{s}, e.waiting...)
	e.stats.Preemptions++
}

// freeBlocks releases s's blocks, tail first.
func (e *Engine) freeBlocks(s *seq, now time.Duration) {
	for i := len(s.blocks) - 1; i >= 0; i-- {
		e.pool.release(s.blocks[i], now)
	}
	s.blocks = s.blocks[:0]
}

// cacheFull registers s's newly completed full blocks in the prefix table.
func (e *Engine) cacheFull(s *seq) {
	if e.slots != nil {
		return // a slot's KV is private: nothing is shared by block hash
	}
	bs := e.cfg.BlockSize
	full := s.computed / bs
	if full <= s.registered {
		return
	}
	hashes := s.blockHashes(full, bs)
	e.pool.table.touch(hashes[max(s.registered, min(s.runs.keyed, full)):full])
	for i := s.registered; i < full; i++ {
		if k, keyed := s.runs.pos(i); keyed {
			e.pool.registerKeyed(s.blocks[i], hashes[i], i+1, hashes[i-k], k)
		} else {
			e.pool.register(s.blocks[i], hashes[i], i+1)
		}
	}
	e.emitStored(s, s.registered, full)
	s.registered = full
}
