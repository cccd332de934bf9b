package engine

// heapEvictor keeps the cached blocks without users in a binary min-heap
// under less (the first to evict at the root); each block records its
// slot in the heap, so push, remove and pop are O(log n). Blocks are
// released in time order, so a push under a policy that orders by release
// time first sifts up at most past blocks released at the same instant.
type heapEvictor struct {
	pool *blockPool
	heap []int32
	slot []int32 // each block's position in heap, −1 outside it
	less func(p *blockPool, a, b int32) bool
}

// newHeapEvictor returns an empty heap evictor over p's blocks.
func newHeapEvictor(p *blockPool, less func(p *blockPool, a, b int32) bool) *heapEvictor {
	e := &heapEvictor{pool: p, slot: make([]int32, len(p.blocks)), less: less}
	for i := range e.slot {
		e.slot[i] = -1
	}
	return e
}

// lruLongestLess orders EvictLRULongest: released earlier, then deeper,
// then lower id.
func lruLongestLess(p *blockPool, a, b int32) bool {
	if ta, tb := p.lastUsed[a], p.lastUsed[b]; ta != tb {
		return ta < tb
	}
	if da, db := p.blocks[a].depth, p.blocks[b].depth; da != db {
		return da > db
	}
	return a < b
}

// lfuLess orders EvictLFU: fewer uses, then as lruLongestLess.
func lfuLess(p *blockPool, a, b int32) bool {
	if p.uses[a] != p.uses[b] {
		return p.uses[a] < p.uses[b]
	}
	return lruLongestLess(p, a, b)
}

func (e *heapEvictor) Len() int { return len(e.heap) }

// before reports whether the block in slot i is evicted before the one in
// slot j.
func (e *heapEvictor) before(i, j int) bool {
	return e.less(e.pool, e.heap[i], e.heap[j])
}

func (e *heapEvictor) push(id int32) {
	e.heap = append(e.heap, id)
	e.slot[id] = int32(len(e.heap) - 1)
	e.up(len(e.heap) - 1)
}

func (e *heapEvictor) remove(id int32) {
	i := int(e.slot[id])
	last := len(e.heap) - 1
	if i != last {
		e.swap(i, last)
	}
	e.heap = e.heap[:last]
	e.slot[id] = -1
	if i != last {
		if !e.down(i) {
			e.up(i)
		}
	}
}

func (e *heapEvictor) pop() int32 {
	id := e.heap[0]
	e.remove(id)
	return id
}

func (e *heapEvictor) swap(i, j int) {
	h := e.heap
	h[i], h[j] = h[j], h[i]
	e.slot[h[i]], e.slot[h[j]] = int32(i), int32(j)
}

// up moves the block in slot i towards the root while it goes first.
func (e *heapEvictor) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(i, p) {
			return
		}
		e.swap(i, p)
		i = p
	}
}

// down moves the block in slot i towards the leaves while a child goes
// first; it reports whether the block moved.
func (e *heapEvictor) down(i int) bool {
	start, n := i, len(e.heap)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && e.before(r, c) {
			c = r
		}
		if !e.before(c, i) {
			break
		}
		e.swap(i, c)
		i = c
	}
	return i > start
}
