package engine

import (
	"cmp"
	"fmt"
	"time"
)

// LlamaCppConfig holds the mechanisms of llama.cpp's server loop that the
// per-slot cache (Config.Cache CachePerSlot) prices: what an admission
// costs before the next batch, how a batch splits into ubatches and how
// many requests the server takes in at once. The zero value prices none of
// them (the per-slot cache then behaves as before: free saves, one batch).
// Figures measured on llama.cpp b7099 with CUDA on an H100 (an 8B model,
// -fa off) are in docs/calibrate-llamacpp.md.
type LlamaCppConfig struct {
	// SaveFixed and SavePerToken price the slot-switch save: before a slot
	// takes a prompt it shares less than half with, llama-server copies
	// the slot's KV to its host prompt cache, on the engine loop, before
	// the next batch runs (every decoding request waits). Cost = SaveFixed
	// + SavePerToken × tokens the slot held. Zero when the host cache is
	// off (--cache-ram 0); far cheaper with -fa on (the V cache is not
	// transposed). Default 0.
	SaveFixed, SavePerToken time.Duration
	// RestoreFixed and RestorePerToken price loading a saved prompt from
	// the host cache into a slot: RestoreFixed + RestorePerToken × tokens
	// restored. Default 0.
	RestoreFixed, RestorePerToken time.Duration
	// SplitKV is true when the KV cache is split per slot (llama-server's
	// default; -kvu makes it unified). Each run of consecutive busy slot
	// ids that decode in a step is then its own ubatch, priced as a batch
	// of that size, and each prompt chunk runs in ubatches of its own.
	SplitKV bool
	// UbatchSize is -ub, the most tokens of one ubatch (default 512): a
	// prompt chunk of n tokens runs as ⌈n/UbatchSize⌉ ubatches, each
	// paying β once.
	UbatchSize int
	// HTTPWorkers is the server's HTTP threads (--threads-http; by default
	// max(-np + 2, cores − 1)). Requests beyond them wait outside the
	// server's task queue: the server does not report them waiting, and a
	// client that gives up on one does not cancel it (the server still
	// admits it, and drops it at its first token). 0: unlimited.
	HTTPWorkers int
}

// DefaultUbatchSize is llama.cpp's default -ub (512).
const DefaultUbatchSize = 512

// active reports whether any mechanism is priced or bounded.
func (l LlamaCppConfig) active() bool { return l != LlamaCppConfig{} }

// validate reports the first invalid field.
func (l LlamaCppConfig) validate() error {
	switch {
	case l.SaveFixed < 0 || l.SavePerToken < 0:
		return fmt.Errorf("engine config: LlamaCpp save cost %v + %v per token: want ≥ 0", l.SaveFixed, l.SavePerToken)
	case l.RestoreFixed < 0 || l.RestorePerToken < 0:
		return fmt.Errorf("engine config: LlamaCpp restore cost %v + %v per token: want ≥ 0", l.RestoreFixed, l.RestorePerToken)
	}
	return cmp.Or(
		atLeast(engineConfig, "LlamaCpp UbatchSize", l.UbatchSize, 0),
		atLeast(engineConfig, "LlamaCpp HTTPWorkers", l.HTTPWorkers, 0),
	)
}

// ubatch returns the ubatch size in force (UbatchSize, else the default).
func (l LlamaCppConfig) ubatch() int {
	if l.UbatchSize > 0 {
		return l.UbatchSize
	}
	return DefaultUbatchSize
}

// saveCost is the time to save a slot holding n tokens.
func (l LlamaCppConfig) saveCost(n int) time.Duration {
	return l.SaveFixed + time.Duration(n)*l.SavePerToken
}

// restoreCost is the time to restore n tokens into a slot.
func (l LlamaCppConfig) restoreCost(n int) time.Duration {
	return l.RestoreFixed + time.Duration(n)*l.RestorePerToken
}

// chargePlacement adds the save and restore of a slot placement to the
// step being planned: they run on the engine loop before the batch.
func (e *Engine) chargePlacement(pl placement) {
	l := e.cfg.LlamaCpp
	if pl.saved > 0 {
		e.extra += l.saveCost(pl.saved)
		e.stats.SlotSaves++
		e.stats.SlotSavedTokens += int64(pl.saved)
	}
	if pl.restored > 0 {
		e.extra += l.restoreCost(pl.restored)
		e.stats.SlotRestores++
	}
}

// splitKV reports whether steps are priced per ubatch of a split KV cache.
func (e *Engine) splitKV() bool { return e.slots != nil && e.cfg.LlamaCpp.SplitKV }

// ubatches prices a step of a split KV cache: each run of consecutive
// decoding slot ids is one ubatch, each prompt chunk ⌈n/UbatchSize⌉ more.
// decoding marks the slots that decode in the step.
func (e *Engine) ubatchMean(decoding []bool, promptChunks []int, prefill int, keys int64) time.Duration {
	m := e.cfg.Latency
	ub := e.cfg.LlamaCpp.ubatch()
	t := float64(m.StepOverhead) + float64(m.PrefillPerToken)*float64(prefill) + m.AttendPerKey*float64(keys)
	run := 0
	flush := func() {
		if run > 0 {
			t, run = m.addBatch(t, run), 0
		}
	}
	for _, busy := range decoding {
		if busy {
			run++
		} else {
			flush()
		}
	}
	flush()
	for _, n := range promptChunks {
		t += float64(m.Beta) * float64((n+ub-1)/ub)
	}
	return time.Duration(t)
}

// Outside reports whether live request id waits outside the server's
// HTTP workers (LlamaCppConfig.HTTPWorkers): neither running nor among
// the first HTTPWorkers − running waiting requests.
func (e *Engine) Outside(id string) bool {
	w := e.cfg.LlamaCpp.HTTPWorkers
	s, ok := e.live[id]
	if w == 0 || !ok || s.running {
		return false
	}
	inside := max(0, w-len(e.running))
	for i, q := range e.waiting {
		if q == s {
			return i >= inside
		}
	}
	return false
}

// ClientGone tells the engine that request id's client gave up. A request
// the server has taken in (running, or waiting with an HTTP worker) is
// aborted at once, as vLLM and llama-server cancel a task whose connection
// closed; one still outside the HTTP workers is kept, admitted in its turn
// and dropped at its first token, as llama-server only sees the closed
// connection then. It reports whether the request was aborted now.
func (e *Engine) ClientGone(id string) bool {
	s, ok := e.live[id]
	if !ok {
		return false
	}
	if e.Outside(id) {
		s.detached = true
		return false
	}
	return e.Abort(id)
}

// visibleWaiting is the waiting requests the server reports: those with
// an HTTP worker when the workers are bounded.
func (e *Engine) visibleWaiting() int {
	w := e.cfg.LlamaCpp.HTTPWorkers
	if w == 0 {
		return len(e.waiting)
	}
	return min(len(e.waiting), max(0, w-len(e.running)))
}

// resetUbatches clears the step's ubatch scratch.
func (e *Engine) resetUbatches() {
	if len(e.decoding) != e.cfg.MaxNumSeqs {
		e.decoding = make([]bool, e.cfg.MaxNumSeqs)
	}
	clear(e.decoding)
	e.chunks = e.chunks[:0]
}

// noteUbatch records s's share of the step: a decode on its slot, or a
// prompt chunk of n tokens.
func (e *Engine) noteUbatch(s *seq, n int, decode bool) {
	switch {
	case n <= 0:
	case decode && s.slot >= 0 && s.slot < len(e.decoding):
		e.decoding[s.slot] = true
	default:
		e.chunks = append(e.chunks, n)
	}
}
