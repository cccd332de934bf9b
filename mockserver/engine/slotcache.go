package engine

import "slices"

// Cache models of Config.Cache.
const (
	// CachePagedPrefix is the shared paged prefix cache of vLLM and SGLang:
	// full blocks are hashed and any request hits any cached block (the
	// default; "" means the same).
	CachePagedPrefix = "paged-prefix"
	// CachePerSlot is llama.cpp's server cache: MaxNumSeqs slots, each
	// keeping the tokens of its last prompt and output; a request is placed
	// on one slot and reuses only the longest common prefix with that
	// slot's tokens, optionally after restoring a prompt saved in host
	// memory (Config.HostCacheTokens).
	CachePerSlot = "per-slot"
)

// DefaultSlotSimilarity is llama.cpp's default --slot-prompt-similarity
// (0.10 in llama-server b7099's --help).
const DefaultSlotSimilarity = 0.1

// slotCache is the per-slot cache: llama.cpp server's slot selection
// (server_context::get_available_slot in tools/server/server.cpp, b7099)
// and its host-memory prompt cache (server_prompt_cache, --cache-ram).
type slotCache struct {
	slots      []slot
	similarity float64 // --slot-prompt-similarity; 0 turns the LCP pass off
	host       []hostEntry
	hostCap    int // tokens the host cache holds; 0: no host cache
	hostUsed   int
	tick       int64 // logical clock for least-recently-used order
}

// slot is one llama.cpp server slot.
type slot struct {
	tokens   []int32 // KV held: the last prompt and its computed output
	salt     uint64
	busy     bool
	lastUsed int64 // tick of the last release; −1 never used
}

// hostEntry is a prompt state saved in host memory.
type hostEntry struct {
	tokens []int32
	salt   uint64
}

// newSlotCache returns n empty slots.
func newSlotCache(n int, similarity float64, hostCap int) *slotCache {
	c := &slotCache{slots: make([]slot, n), similarity: similarity, hostCap: hostCap}
	for i := range c.slots {
		c.slots[i].lastUsed = -1
	}
	return c
}

// lcp is the length of the longest common prefix of a and b.
func lcp(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// common is the prefix of tokens a slot or entry with salt can serve.
func common(held []int32, heldSalt uint64, tokens []int32, salt uint64) int {
	if heldSalt != salt {
		return 0
	}
	return lcp(held, tokens)
}

// placement is where place put a request and what it cost: the slot
// (−1: none free), the tokens of its cache the request reuses, and the
// tokens saved to and restored from the host cache (−1: no save or no
// restore; 0 is a save of an empty slot, which llama.cpp skips).
type placement struct {
	slot, hit       int
	saved, restored int
}

// place picks a free slot for a request of tokens (salted by salt), marks
// it busy and returns the placement. Like llama.cpp it first
// takes the free slot whose common prefix is the largest share of the
// prompt above the similarity threshold, else the least recently used
// free slot (ties to the highest index). When the chosen slot would lose
// most of its tokens (kept share < 0.5, or any LRU pick), the slot's state
// is saved in the host cache and the saved prompt serving the request
// best is restored into it.
func (c *slotCache) place(tokens []int32, salt uint64) placement {
	best, save := c.bySimilarity(tokens, salt)
	if best < 0 {
		best = c.leastRecent()
		save = best >= 0
	}
	if best < 0 {
		return placement{slot: -1, saved: -1, restored: -1}
	}
	return c.take(best, save, tokens, salt)
}

// take marks free slot i busy for a request of tokens, first saving the
// slot's state to the host cache and restoring the saved prompt that
// serves the request best when save is set.
func (c *slotCache) take(i int, save bool, tokens []int32, salt uint64) placement {
	s := &c.slots[i]
	p := placement{slot: i, saved: -1, restored: -1}
	if save && c.hostCap > 0 {
		if len(s.tokens) > 0 && c.save(s.tokens, s.salt) {
			p.saved = len(s.tokens)
		}
		p.restored = c.restore(s, tokens, salt) // into an empty slot too, as llama.cpp
	}
	s.busy = true
	p.hit = common(s.tokens, s.salt, tokens, salt)
	return p
}

// placeAt puts a request of tokens on slot i, the slot the measured
// server chose for it, with what place would have cost there: no save
// when the slot's common prefix is a share of the prompt above the
// similarity threshold and keeps at least half the slot's tokens (place's
// similarity pass), else a save and a restore (its least-recently-used
// pick). The placement's slot is −1 while slot i is busy.
func (c *slotCache) placeAt(i int, tokens []int32, salt uint64) placement {
	s := &c.slots[i]
	if s.busy {
		return placement{slot: -1, saved: -1, restored: -1}
	}
	save := true
	if n := common(s.tokens, s.salt, tokens, salt); c.similarity > 0 && len(s.tokens) > 0 &&
		float64(n)/float64(len(tokens)) > c.similarity {
		save = float64(n)/float64(len(s.tokens)) < minSlotKeep
	}
	return c.take(i, save, tokens, salt)
}

// placeOn puts a request of tokens on slot i when it is free, as
// llama.cpp launches a task that names its slot: the slot keeps its
// common prefix with the prompt, with no save or restore. The placement's
// slot is −1 while slot i is busy.
func (c *slotCache) placeOn(i int, tokens []int32, salt uint64) placement {
	s := &c.slots[i]
	if s.busy {
		return placement{slot: -1, saved: -1, restored: -1}
	}
	s.busy = true
	return placement{slot: i, hit: common(s.tokens, s.salt, tokens, salt), saved: -1, restored: -1}
}

// pinnedBusy reports whether s names a slot of the per-slot cache (or
// ran on one in the measured run) that is busy: the server defers it and
// goes on with the requests behind it.
func (e *Engine) pinnedBusy(s *seq) bool {
	i := s.req.Slot
	if i == nil {
		i = s.req.RanOn
	}
	return e.slots != nil && i != nil && e.slots.slots[*i].busy
}

// minSlotKeep is the least share of its tokens a slot chosen by
// similarity must keep to be taken without a save (llama.cpp's
// get_available_slot: a slot that would lose most of its prompt is saved
// to the host cache first).
const minSlotKeep = 0.5

// bySimilarity returns the free slot with the largest common-prefix share
// above the threshold (−1 when none) and whether its kept share is below
// one half.
func (c *slotCache) bySimilarity(tokens []int32, salt uint64) (int, bool) {
	if c.similarity == 0 {
		return -1, false
	}
	best, simBest := -1, 0.0
	for i := range c.slots {
		s := &c.slots[i]
		if s.busy || len(s.tokens) == 0 {
			continue
		}
		sim := float64(common(s.tokens, s.salt, tokens, salt)) / float64(len(tokens))
		if sim > simBest && sim > c.similarity {
			best, simBest = i, sim
		}
	}
	if best < 0 {
		return -1, false
	}
	keep := simBest * float64(len(tokens)) / float64(len(c.slots[best].tokens))
	return best, keep < minSlotKeep
}

// leastRecent returns the free slot released longest ago, −1 if none;
// ties go to the highest index, as llama.cpp's loop (t_last_used ≤ best)
// gives them.
func (c *slotCache) leastRecent() int {
	best := -1
	for i := range c.slots {
		s := &c.slots[i]
		if !s.busy && (best < 0 || s.lastUsed <= c.slots[best].lastUsed) {
			best = i
		}
	}
	return best
}

// save copies a slot's tokens into the host cache unless an entry already
// holds them, dropping entries that are prefixes of it and then the
// oldest entries until it fits, as llama.cpp's server_prompt_cache
// alloc and update do (one entry is always kept, even over the limit).
// It reports whether the tokens were copied: a slot whose prompt the
// host already holds costs no copy (alloc returns no buffer).
func (c *slotCache) save(tokens []int32, salt uint64) bool {
	kept := c.host[:0]
	for _, e := range c.host {
		switch {
		case e.salt == salt && lcp(e.tokens, tokens) == len(tokens):
			return false // already held (the entry extends it)
		case e.salt == salt && lcp(e.tokens, tokens) == len(e.tokens):
			c.hostUsed -= len(e.tokens) // the new entry extends it
		default:
			kept = append(kept, e)
		}
	}
	c.host = kept
	c.host = append(c.host, hostEntry{tokens: slices.Clone(tokens), salt: salt})
	c.hostUsed += len(tokens)
	for c.hostUsed > c.hostCap && len(c.host) > 1 {
		c.hostUsed -= len(c.host[0].tokens)
		c.host = slices.Delete(c.host, 0, 1)
	}
	return true
}

// minRestoreKeep is the least share of a saved prompt a restore must
// reuse (llama.cpp's server_prompt_cache::load).
const minRestoreKeep = 0.25

// restore loads into s the host entry that serves tokens better than s
// does on both counts llama.cpp compares (share of the entry kept and share
// of the prompt served), taking the entry out of the host cache. It
// returns the tokens loaded, −1 when none was.
func (c *slotCache) restore(s *slot, tokens []int32, salt uint64) int {
	n := common(s.tokens, s.salt, tokens, salt)
	keepBest := float64(n) / float64(max(1, len(s.tokens)))
	simBest := float64(n) / float64(len(tokens))
	pick := -1
	for i, e := range c.host {
		m := common(e.tokens, e.salt, tokens, salt)
		keep := float64(m) / float64(len(e.tokens))
		sim := float64(m) / float64(len(tokens))
		if keep < minRestoreKeep {
			continue // llama.cpp does not trash a large saved prompt for a small reuse
		}
		if keep > keepBest && sim > simBest {
			pick, keepBest, simBest = i, keep, sim
		}
	}
	if pick < 0 {
		return -1
	}
	e := c.host[pick]
	c.host = slices.Delete(c.host, pick, pick+1)
	c.hostUsed -= len(e.tokens)
	s.tokens, s.salt = e.tokens, e.salt
	return len(e.tokens)
}

// release frees slot i, which now holds the given tokens (copied).
func (c *slotCache) release(i int, tokens []int32, salt uint64) {
	s := &c.slots[i]
	c.tick++
	s.tokens = append(s.tokens[:0:0], tokens...)
	s.salt, s.busy, s.lastUsed = salt, false, c.tick
}

// admitSlot places s on a free slot, takes the slot's common prefix as
// computed (llama.cpp always computes the prompt's last token) and gives
// s fresh blocks for it and a first chunk of at most budget tokens. It
// reports false when no slot is free or blocks are short.
func (e *Engine) admitSlot(s *seq, budget int) (int, bool) {
	if e.pool.available() < e.cfg.blocksFor(s.numTokens()) {
		return 0, false // checked first, so a refused request leaves the slots alone
	}
	var pl placement
	switch {
	case s.req.Slot != nil:
		pl = e.slots.placeOn(*s.req.Slot, s.tokens, s.salt)
	case s.req.RanOn != nil:
		pl = e.slots.placeAt(*s.req.RanOn, s.tokens, s.salt)
	default:
		pl = e.slots.place(s.tokens, s.salt)
	}
	i, hit := pl.slot, pl.hit
	if i < 0 {
		return 0, false
	}
	e.chargePlacement(pl)
	computed := min(hit, s.numTokens()-1)
	n := min(s.numTokens()-computed, budget)
	s.blocks = s.blocks[:0]
	for range e.cfg.blocksFor(computed + n) {
		s.blocks = append(s.blocks, e.pool.allocate())
	}
	s.slot, s.computed, s.running = i, computed, true
	s.saved = max(0, pl.saved)
	e.countLookup(s, computed)
	return n, true
}

// releaseSlot frees s's slot, which keeps the tokens s computed.
func (e *Engine) releaseSlot(s *seq) {
	if e.slots == nil || s.slot < 0 {
		return
	}
	e.slots.release(s.slot, s.tokens[:s.computed], s.salt)
	s.slot = -1
}
