package engine

import "time"

// heapEvictor keeps the cached blocks without users in a binary min-heap
// under less (the first to evict at the root); each block records its
// slot in the heap, so push, remove and pop are O(log n). Blocks are
// released in time order, so a push under a policy that orders by release
// time first sifts up at most past blocks released at the same instant.
type heapEvictor struct {
	pool *blockPool
	heap []int32
	less func(a, b *block, ida, idb int32) bool
}

// lruLongestLess orders EvictLRULongest: released earlier, then deeper,
// then lower id.
func lruLongestLess(a, b *block, ida, idb int32) bool {
	if a.lastUsed != b.lastUsed {
		return a.lastUsed < b.lastUsed
	}
	if a.depth != b.depth {
		return a.depth > b.depth
	}
	return ida < idb
}

// lfuLess orders EvictLFU: fewer uses, then as lruLongestLess.
func lfuLess(a, b *block, ida, idb int32) bool {
	if a.uses != b.uses {
		return a.uses < b.uses
	}
	return lruLongestLess(a, b, ida, idb)
}

func (e *heapEvictor) Len() int { return len(e.heap) }

// before reports whether the block in slot i is evicted before the one in
// slot j.
func (e *heapEvictor) before(i, j int) bool {
	a, b := e.heap[i], e.heap[j]
	return e.less(&e.pool.blocks[a], &e.pool.blocks[b], a, b)
}

func (e *heapEvictor) push(id int32, now time.Duration) {
	e.pool.blocks[id].lastUsed = now
	e.heap = append(e.heap, id)
	e.pool.blocks[id].slot = int32(len(e.heap) - 1)
	e.up(len(e.heap) - 1)
}

func (e *heapEvictor) remove(id int32) {
	i := int(e.pool.blocks[id].slot)
	last := len(e.heap) - 1
	if i != last {
		e.swap(i, last)
	}
	e.heap = e.heap[:last]
	e.pool.blocks[id].slot = -1
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
	e.pool.blocks[h[i]].slot, e.pool.blocks[h[j]].slot = int32(i), int32(j)
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
