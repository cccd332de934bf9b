package engine

import "time"

// evictor holds the cached blocks nobody references (reference count 0),
// ordered for eviction: least recently used first and, among blocks last
// used at the same time, the longest prefix (deepest block) first, so a
// chain is cut from its tail and never in the middle. This is the cache
// pool of the hash-prefix-caching report in the seeds ("remove block first
// based on the last utilized time, then on the prefix length"); vLLM's
// free-block queue has the same effect by freeing a request's blocks tail
// first. It is a binary heap with positions kept in the blocks, so a block
// that gets a new user leaves the pool in O(log n).
type evictor struct {
	pool *blockPool
	heap []int32
}

// Len is the number of cached blocks without users.
func (e *evictor) Len() int { return len(e.heap) }

// before reports whether block a is evicted before block b.
func (e *evictor) before(a, b int32) bool {
	ba, bb := &e.pool.blocks[a], &e.pool.blocks[b]
	if ba.lastUsed != bb.lastUsed {
		return ba.lastUsed < bb.lastUsed
	}
	if ba.depth != bb.depth {
		return ba.depth > bb.depth
	}
	return a < b
}

func (e *evictor) swap(i, j int) {
	e.heap[i], e.heap[j] = e.heap[j], e.heap[i]
	e.pool.blocks[e.heap[i]].pos = int32(i)
	e.pool.blocks[e.heap[j]].pos = int32(j)
}

func (e *evictor) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(e.heap[i], e.heap[p]) {
			return
		}
		e.swap(i, p)
		i = p
	}
}

func (e *evictor) down(i int) {
	n := len(e.heap)
	for {
		l, best := 2*i+1, i
		if l < n && e.before(e.heap[l], e.heap[best]) {
			best = l
		}
		if r := l + 1; r < n && e.before(e.heap[r], e.heap[best]) {
			best = r
		}
		if best == i {
			return
		}
		e.swap(i, best)
		i = best
	}
}

// push adds block id, last used at now.
func (e *evictor) push(id int32, now time.Duration) {
	e.pool.blocks[id].lastUsed = now
	e.pool.blocks[id].pos = int32(len(e.heap))
	e.heap = append(e.heap, id)
	e.up(len(e.heap) - 1)
}

// remove takes block id out of the pool (it has a user again).
func (e *evictor) remove(id int32) {
	i := int(e.pool.blocks[id].pos)
	last := len(e.heap) - 1
	if i != last {
		e.swap(i, last)
	}
	e.heap = e.heap[:last]
	e.pool.blocks[id].pos = -1
	if i < last {
		e.down(i)
		e.up(i)
	}
}

// pop removes and returns the block to evict next.
func (e *evictor) pop() int32 {
	id := e.heap[0]
	e.remove(id)
	return id
}
