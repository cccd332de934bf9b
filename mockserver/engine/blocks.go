package engine

import "time"

// block is one KV cache block: 32 bytes, the fields every allocation,
// lookup and eviction touches. What only some eviction policies read
// lives in the pool's side arrays (lastUsed, uses).
type block struct {
	hash  uint64 // chained hash of the block's tokens (when depth > 0)
	ref   int32  // requests using the block
	depth int32  // 1-based position of the block in its chain when registered in the prefix table, 0 when not
	prev  int32  // neighbours in an EvictLRU list, −1 at its ends;
	next  int32  // next also links the free stack
	group int32  // a keyed block's place in blockGroups: group×groupSize + position + 1; 0 in the blockTable or uncached
}

// hashed reports whether the block is registered in the prefix table.
func (b *block) hashed() bool { return b.depth > 0 }

// blockPool is the paged KV cache with prefix caching: free uncached
// blocks, cached blocks with users, cached blocks without users (the
// evictor), and the tables from chained block hash to block (groups for
// keyed blocks, table for the others).
type blockPool struct {
	blocks []block
	// lastUsed is when each block's last user released it.
	lastUsed []time.Duration
	// uses counts the requests that computed or hit each block since it
	// was allocated (EvictLFU only; nil otherwise).
	uses []int32
	// free is the stack of unreferenced blocks holding no cached prefix,
	// linked through their next fields (unused outside the evictor):
	// its top, −1 when empty, and its size.
	free      int32
	freeLen   int
	evict     evictor // orders the cached blocks without users
	table     blockTable
	groups    blockGroups
	evictions int64
	onEvict   func(hash uint64) // Engine.OnBlockEvent's hook, or nil
}

// newBlockPool returns a pool of n free blocks whose cached blocks are
// evicted under policy (a valid Config.Eviction value, "" for
// EvictLRULongest).
func newBlockPool(n int, policy string) *blockPool {
	p := &blockPool{blocks: make([]block, n), lastUsed: make([]time.Duration, n), free: -1}
	p.table = newBlockTable(p.blocks)
	p.groups = newBlockGroups()
	for i := n - 1; i >= 0; i-- { // block 0 on top: handed out first
		p.blocks[i].prev, p.blocks[i].next = -1, -1
		p.pushFree(int32(i))
	}
	policy, _ = evictionPolicy(policy)
	if policy == EvictLFU {
		p.uses = make([]int32, n)
	}
	p.evict = newEvictor(policy, p)
	return p
}

// available is the number of blocks that can be handed out now.
func (p *blockPool) available() int { return p.freeLen + p.evict.Len() }

// pushFree puts block id on top of the free stack.
func (p *blockPool) pushFree(id int32) {
	p.blocks[id].next = p.free
	p.free = id
	p.freeLen++
}

// popFree takes the block on top of the free stack, which must not be
// empty.
func (p *blockPool) popFree() int32 {
	id := p.free
	p.free, p.blocks[id].next = p.blocks[id].next, -1
	p.freeLen--
	return id
}

// used is the number of blocks with at least one user.
func (p *blockPool) used() int { return len(p.blocks) - p.available() }

// lookup appends to ids those of the cached blocks matching the leading
// hashes of a request whose blocks are keyed as runs says, stopping at the
// first miss.
func (p *blockPool) lookup(ids []int32, hashes []uint64, runs keyRuns) []int32 {
	for i, h := range hashes {
		var id int32
		var ok bool
		if k, keyed := runs.pos(i); keyed {
			id, ok = p.groups.get(hashes[i-k], k)
		} else {
			id, ok = p.table.get(h)
		}
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	return ids
}

// idle reports whether block id is cached without users (in the evictor).
func (p *blockPool) idle(id int32) bool { return p.blocks[id].ref == 0 }

// acquire adds a user to a cached block found by lookup.
func (p *blockPool) acquire(id int32) {
	b := &p.blocks[id]
	if b.ref == 0 {
		p.evict.remove(id)
	}
	b.ref++
	if p.uses != nil {
		p.uses[id]++
	}
}

// allocate hands out a fresh block, evicting the next cached block when
// no uncached one is free. The caller checks available first.
func (p *blockPool) allocate() int32 {
	var id int32
	if p.freeLen > 0 {
		id = p.popFree()
	} else {
		id = p.evict.pop()
		b := &p.blocks[id]
		if p.onEvict != nil {
			p.onEvict(b.hash)
		}
		if b.group != 0 {
			p.groups.drop(b.group)
			b.group = 0
		}
		b.hash, b.depth = 0, 0 // a blockTable entry goes stale
		p.evictions++
	}
	p.blocks[id].ref = 1
	if p.uses != nil {
		p.uses[id] = 1
	}
	return id
}

// release drops one user of block id at time now; a cached block without
// users moves to the evictor, an uncached one to the free list.
func (p *blockPool) release(id int32, now time.Duration) {
	b := &p.blocks[id]
	b.ref--
	if b.ref > 0 {
		return
	}
	if b.hashed() {
		p.lastUsed[id] = now
		p.evict.push(id)
		return
	}
	p.pushFree(id)
}

// register caches full block id under hash at chain position depth. When
// another block already holds that hash (two requests computed the same
// prefix at once) the first stays the cached one, as in vLLM.
func (p *blockPool) register(id int32, hash uint64, depth int) {
	if !p.table.insert(hash, id) {
		return
	}
	b := &p.blocks[id]
	b.hash, b.depth = hash, int32(depth)
}

// registerKeyed caches keyed block id, of hash at chain position depth,
// at position k of the group whose first block's hash is key; as register
// when another block already holds it.
func (p *blockPool) registerKeyed(id int32, hash uint64, depth int, key uint64, k int) {
	ref, ok := p.groups.insert(key, k, id)
	if !ok {
		return
	}
	b := &p.blocks[id]
	b.hash, b.depth, b.group = hash, int32(depth), ref
}
