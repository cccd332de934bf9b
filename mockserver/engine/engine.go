package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Engine is the step engine. Create it with New.
type Engine struct {
	cfg     Config
	pool    *blockPool
	rng     *rand.Rand
	jitter  jitter // cfg.Latency's jitter parameters
	waiting []*seq // FCFS; preempted requests go back to the front
	running []*seq // admission order; the newest is preempted first
	live    map[string]*seq
	stats   Stats
	clock   time.Duration // the latest time given to Add or Step
	lora    loraState
	extra   time.Duration // adapter load time of the step being planned
	plan    []planned     // the last step's plan (its array is reused)
	hits    []int32       // scratch of admit's prefix lookup
	spare   []seqArrays   // arrays of finished requests, for new ones
	// blockHook receives prefix cache changes (OnBlockEvent), or nil.
	blockHook func(BlockEvent)
	// slots is the per-slot cache (Config.Cache CachePerSlot), or nil.
	slots *slotCache
	// decoding and chunks are the step's decoding slots and prompt chunk
	// sizes, for a split KV cache's ubatches (reused every step).
	decoding []bool
	chunks   []int
}

// New returns an engine for cfg after validating it.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.OutputVocab = append([]int(nil), cfg.OutputVocab...)
	e := &Engine{
		cfg:    cfg,
		pool:   newBlockPool(cfg.NumGPUBlocks, cfg.Eviction),
		rng:    rand.New(rand.NewPCG(uint64(cfg.Seed), 0x6d6f636b)),
		jitter: cfg.Latency.jitter(),
		lora:   loraState{cfg: cfg.LoRA},
		live:   make(map[string]*seq),
		stats:  Stats{NumGPUBlocks: cfg.NumGPUBlocks, BlockSize: cfg.BlockSize, Finished: map[FinishReason]int64{}},
	}
	if cfg.Cache == CachePerSlot {
		e.slots = newSlotCache(cfg.MaxNumSeqs, cfg.SlotSimilarity, cfg.HostCacheTokens)
		if cfg.WarmSlots != nil {
			e.slots.warm(cfg.WarmSlots)
		}
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// ErrTooLong is returned (wrapped in a *LengthError) by Add for a request
// that can never run: prompt plus MaxTokens over MaxModelLen or over the
// whole KV cache.
var ErrTooLong = errors.New("request too long")

// LengthError details a request rejected as too long.
type LengthError struct {
	// PromptTokens and MaxTokens are the request's.
	PromptTokens, MaxTokens int
	// Limit is the bound exceeded, in tokens; Cache tells whether it is
	// the KV cache capacity (else MaxModelLen).
	Limit int
	Cache bool
}

// Error gives vLLM's wording for the model-length case.
func (e *LengthError) Error() string {
	if e.Cache {
		return fmt.Sprintf("the request needs %d tokens (%d in the prompt, %d in the completion) "+
			"but the KV cache holds %d tokens", e.PromptTokens+e.MaxTokens, e.PromptTokens, e.MaxTokens, e.Limit)
	}
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens "+
		"(%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
		e.Limit, e.PromptTokens+e.MaxTokens, e.PromptTokens, e.MaxTokens)
}

// Unwrap makes errors.Is(err, ErrTooLong) hold.
func (e *LengthError) Unwrap() error { return ErrTooLong }

// Add queues request r, arriving at now. It rejects an empty prompt, a
// MaxTokens below 1, a duplicate live ID, and a request that can never
// fit (a *LengthError wrapping ErrTooLong). The engine does not keep
// r.Prompt or r.PromptKeys: it hashes the prompt's full blocks at once and
// copies only what it still needs, so the caller may reuse the slices.
func (e *Engine) Add(now time.Duration, r *Request) error {
	prompt := len(r.PromptKeys)*e.cfg.BlockSize + len(r.Prompt)
	switch {
	case prompt == 0:
		return fmt.Errorf("add request %q: empty prompt", r.ID)
	case len(r.PromptKeys) > 0 && e.KeepsTokens():
		return fmt.Errorf("add request %q: prompt keys given but the engine keeps every prompt token "+
			"(per-slot cache or block event hook)", r.ID)
	case r.MaxTokens < 1:
		return fmt.Errorf("add request %q: max tokens %d: want ≥ 1", r.ID, r.MaxTokens)
	case r.MinTokens < 0:
		return fmt.Errorf("add request %q: min tokens %d: want ≥ 0", r.ID, r.MinTokens)
	case r.Slot != nil && e.slots != nil && (*r.Slot < 0 || *r.Slot >= len(e.slots.slots)):
		return fmt.Errorf("add request %q: slot %d: the server has slots 0 to %d", r.ID, *r.Slot, len(e.slots.slots)-1)
	case r.RanOn != nil && e.slots != nil && (*r.RanOn < 0 || *r.RanOn >= len(e.slots.slots)):
		return fmt.Errorf("add request %q: ran on slot %d: the server has slots 0 to %d", r.ID, *r.RanOn, len(e.slots.slots)-1)
	}
	e.clock = max(e.clock, now)
	if _, dup := e.live[r.ID]; dup {
		return fmt.Errorf("add request %q: id already live", r.ID)
	}
	n := prompt + r.MaxTokens
	if n > e.cfg.MaxModelLen {
		return &LengthError{PromptTokens: prompt, MaxTokens: r.MaxTokens, Limit: e.cfg.MaxModelLen}
	}
	if e.cfg.blocksFor(n) > e.cfg.NumGPUBlocks {
		return &LengthError{PromptTokens: prompt, MaxTokens: r.MaxTokens,
			Limit: e.cfg.NumGPUBlocks * e.cfg.BlockSize, Cache: true}
	}
	s := &seq{req: *r, promptLen: prompt, arrival: now, slot: -1,
		tokSeed: mix64(uint64(e.cfg.Seed)) ^ xxhash.Sum64String(r.ID), salt: saltHash(r.CacheSalt)}
	s.reasoning = e.cfg.Reasoning.Tokens(s.tokSeed)
	e.keepPrompt(s, r.PromptKeys, r.Prompt, n)
	// s keeps what it needs; do not keep the caller's copies alive.
	s.req.Prompt, s.req.PromptKeys = nil, nil
	e.live[r.ID] = s
	e.waiting = append(e.waiting, s)
	return nil
}

// KeepsTokens reports whether the engine keeps every prompt token: the
// per-slot cache compares prompts, a block event hook reports stored
// tokens. Requests with PromptKeys are refused then.
func (e *Engine) KeepsTokens() bool { return e.slots != nil || e.blockHook != nil }

// keepPrompt stores the prompt of s (the blocks standing for keys, then
// the tokens of prompt), whose tokens will number at most n: the hashes of
// its full blocks and the tokens after them (every token when the engine
// keeps tokens, in which case keys is empty).
func (e *Engine) keepPrompt(s *seq, keys []uint64, prompt []int, n int) {
	bs := e.cfg.BlockSize
	tail := 0 // full blocks of prompt folded into hashes
	if !e.KeepsTokens() {
		tail = len(prompt) / bs
		s.base = (len(keys) + tail) * bs
	}
	a := e.arrays(n-s.base, n/bs, e.cfg.blocksFor(n))
	s.hashes, s.blocks = a.hashes, a.blocks
	if len(keys) > 0 {
		s.hashes = appendKeyHashes(s.hashes, s.salt, keys)
		s.runs = keyRuns{keyed: len(keys), run: max(1, s.req.KeyRun)}
	}
	if tail > 0 {
		parent := s.salt
		if k := len(s.hashes); k > 0 {
			parent = s.hashes[k-1]
		}
		s.hashes = appendHashes(s.hashes, parent, prompt, bs, tail)
	}
	rest := prompt[tail*bs:]
	s.tokens = a.tokens[:len(rest)]
	for i, t := range rest {
		s.tokens[i] = int32(t)
	}
}

// Abort removes a live request and frees its blocks (as last used at the
// latest time given to Add or Step), counting it as finished with
// FinishAbort. It reports whether the request was live; no event is
// emitted for it.
func (e *Engine) Abort(id string) bool {
	s, ok := e.live[id]
	if !ok {
		return false
	}
	if s.running {
		e.running = removeSeq(e.running, s)
	} else {
		e.waiting = removeSeq(e.waiting, s)
	}
	e.freeBlocks(s, e.clock)
	e.releaseSlot(s)
	delete(e.live, id)
	e.recycle(s)
	e.stats.Finished[FinishAbort]++
	return true
}

// removeSeq deletes s from list, keeping the order.
func removeSeq(list []*seq, s *seq) []*seq {
	for i, x := range list {
		if x == s {
			return append(list[:i], list[i+1:]...)
		}
	}
	return list
}

// Idle reports whether the engine has no live request.
func (e *Engine) Idle() bool { return len(e.live) == 0 }

// Stats returns a snapshot of gauges and counters.
func (e *Engine) Stats() Stats {
	st := e.stats
	st.Running, st.Waiting = len(e.running), e.visibleWaiting()
	st.UsedBlocks = e.pool.used()
	st.CachedBlocks = e.pool.evict.Len()
	st.KVUsage = float64(st.UsedBlocks) / float64(e.cfg.NumGPUBlocks)
	st.Evictions = e.pool.evictions
	st.LoRA = e.loraStats()
	st.Finished = make(map[FinishReason]int64, len(e.stats.Finished))
	for k, v := range e.stats.Finished {
		st.Finished[k] = v
	}
	return st
}
