package engine

// BlockEventKind is what changed in the prefix cache.
type BlockEventKind uint8

// Block event kinds, vLLM's BlockStored, BlockRemoved and AllBlocksCleared.
const (
	// BlocksStored: full blocks were registered in the prefix table.
	BlocksStored BlockEventKind = iota + 1
	// BlocksRemoved: cached blocks were evicted from the prefix table.
	BlocksRemoved
	// BlocksCleared: the whole prefix table was emptied.
	BlocksCleared
)

// BlockEvent is one change to the engine's prefix cache, with the block
// hashes the engine keys its table by (kvevents.ChainHashes computes them).
type BlockEvent struct {
	// Kind says what changed.
	Kind BlockEventKind
	// Hashes are the blocks stored (in chain order) or removed.
	Hashes []uint64
	// Parent is the hash of the block before Hashes[0] when HasParent
	// (BlocksStored past a chain's first block).
	Parent    uint64
	HasParent bool
	// Tokens are the stored blocks' token ids, BlockSize per block (nil
	// for a request added before the hook was set; see OnBlockEvent).
	Tokens []int
	// BlockSize is tokens per block.
	BlockSize int
}

// OnBlockEvent sets f to receive every prefix cache change, synchronously
// from the Add, Step or ClearCache call that makes it (nil: none). f must
// not call back into the engine and must copy what it keeps. Set it
// before adding requests: a request added without a hook keeps no prompt
// tokens of its full blocks, and its stored blocks report no Tokens.
func (e *Engine) OnBlockEvent(f func(BlockEvent)) {
	e.blockHook = f
	if f == nil {
		e.pool.onEvict = nil
		return
	}
	e.pool.onEvict = func(h uint64) {
		e.blockHook(BlockEvent{Kind: BlocksRemoved, Hashes: []uint64{h}})
	}
}

// emitStored reports the blocks from..to−1 of s that cacheFull has just
// registered (those the prefix table now maps to s's own block; a block
// whose hash another block already held stays unregistered), one event
// per run of consecutive registered blocks.
func (e *Engine) emitStored(s *seq, from, to int) {
	if e.blockHook == nil {
		return
	}
	bs := e.cfg.BlockSize
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		ev := BlockEvent{Kind: BlocksStored, Hashes: append([]uint64(nil), s.hashes[start:end]...),
			Tokens: widen(s.span(start*bs, end*bs)), BlockSize: bs}
		if start > 0 {
			ev.Parent, ev.HasParent = s.hashes[start-1], true
		}
		e.blockHook(ev)
		start = -1
	}
	for i := from; i < to; i++ {
		if id, ok := e.pool.table.get(s.hashes[i]); ok && id == s.blocks[i] {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(to)
}

// ResetPrefixCache empties the prefix table, as vLLM's
// reset_prefix_cache: it fails (false) while any block has a user, else
// frees every cached block and reports BlocksCleared.
func (e *Engine) ResetPrefixCache() bool {
	p := e.pool
	if p.used() > 0 {
		return false
	}
	for id := range p.blocks {
		b := &p.blocks[id]
		if !b.hashed() {
			continue
		}
		p.evict.remove(int32(id))
		b.hash, b.depth, b.group = 0, 0, 0
		p.pushFree(int32(id))
	}
	p.table.clear()
	p.groups.clear()
	if e.blockHook != nil {
		e.blockHook(BlockEvent{Kind: BlocksCleared})
	}
	return true
}

// widen copies 32-bit token ids into ints.
func widen(ids []int32) []int {
	if ids == nil {
		return nil
	}
	out := make([]int, len(ids))
	for i, t := range ids {
		out[i] = int(t)
	}
	return out
}
