package engine

import (
	"slices"
	"time"
)

// execute computes the planned tokens, samples a token for every request
// whose known tokens are all computed, finishes requests and prices the
// step with the latency model.
func (e *Engine) execute(now time.Duration, plan []planned, evs []Event) Step {
	st := Step{Start: now}
	finished := false
	evs = slices.Grow(evs, len(plan))
	split := e.splitKV()
	if split {
		e.resetUbatches()
	}
	for _, p := range plan {
		s := p.s
		ev := Event{ID: s.req.ID, Tag: s.req.Tag, Slot: s.slot}
		if p.admitted {
			ev.Admitted = true
			ev.CachedTokens, ev.QueueTime = s.cached, max(0, now-s.arrival)
			ev.SlotSaved = s.saved
		}
		decode := p.n == 1 && s.numOutput() > 0 && s.computed == s.numTokens()-1
		if p.n > 0 && !decode {
			st.PrefillTokens += p.n
		}
		if split {
			e.noteUbatch(s, p.n, decode)
		}
		st.AttendedKeys += int64(p.n)*int64(s.computed) + int64(p.n)*int64(p.n+1)/2
		s.computed += p.n
		e.cacheFull(s)
		if p.n > 0 && s.computed == s.numTokens() {
			st.DecodeSeqs++
			finished = e.emit(s, &ev, now) || finished
		}
		ev.NumOutput = s.numOutput()
		evs = append(evs, ev)
	}
	if finished {
		e.dropFinished()
	}
	st.Events = evs
	defer func() { e.extra = 0 }()
	if len(plan) > 0 {
		mean := e.cfg.Latency.MeanWith(st.PrefillTokens, st.DecodeSeqs, st.AttendedKeys)
		if split {
			mean = e.ubatchMean(e.decoding, e.chunks, st.PrefillTokens, st.AttendedKeys)
		}
		st.Duration = max(stepFloor, e.jitter.scale(e.cfg.Latency.Jitter, e.rng, mean)) + e.extra
		e.stats.Steps++
	}
	return st
}

// emit generates s's next token into ev and finishes s when it is done.
// Blocks of a finished request are released at now; its events still
// show at the end of the step.
func (e *Engine) emit(s *seq, ev *Event, now time.Duration) bool {
	i := s.numOutput()
	tok := s.nextToken(i, e.cfg.OutputVocab)
	s.tokens = append(s.tokens, int32(tok))
	ev.Token, ev.HasToken = tok, true
	if i < s.reasoning {
		ev.Reasoning, ev.ReasoningEnd = true, i == s.reasoning-1
		e.stats.ReasoningTokens++
	}
	if !s.firstDone {
		s.firstDone, ev.First = true, true
		e.stats.PromptTokens += int64(s.promptLen)
	}
	e.stats.GenerationTokens++
	switch {
	case s.detached:
		ev.Finished, ev.Reason = true, FinishAbort
	case s.numOutput() >= s.req.MaxTokens:
		ev.Finished, ev.Reason = true, FinishLength
	case s.eos(i, e.cfg.EOSProbability):
		ev.Finished, ev.Reason = true, FinishStop
	default:
		return false
	}
	e.freeBlocks(s, now)
	e.releaseSlot(s)
	s.running = false
	delete(e.live, s.req.ID)
	e.stats.Finished[ev.Reason]++
	return true
}

// dropFinished removes finished requests from the running list.
func (e *Engine) dropFinished() {
	kept := e.running[:0]
	for _, s := range e.running {
		if s.running {
			kept = append(kept, s)
		} else {
			e.recycle(s)
		}
	}
	clear(e.running[len(kept):])
	e.running = kept
}
