package engine

import "time"

// evictor holds the cached blocks nobody references (reference count 0),
// ordered for eviction: least recently used first and, among blocks last
// used at the same time, the longest prefix (deepest block) first, so a
// chain is cut from its tail and never in the middle. This is the cache
// pool of the hash-prefix-caching report in the seeds ("remove block first
// based on the last utilized time, then on the prefix length"); vLLM's
// free-block queue has the same effect by freeing a request's blocks tail
// first.
//
// It is a doubly linked list through the blocks, kept in eviction order,
// so pop and remove are O(1). Blocks are released in time order and each
// request's chain tail first, so push almost always appends at the tail
// or lands next to the block pushed before it (merging chains released at
// the same instant); it walks the list from there, which keeps any push
// order correct.
type evictor struct {
	pool       *blockPool
	head, tail int32 // −1 when empty
	last       int32 // the block pushed last while it stays in the list, else −1
	n          int
}

// init empties the list.
func (e *evictor) init(p *blockPool) {
	e.pool, e.head, e.tail, e.last, e.n = p, -1, -1, -1, 0
}

// Len is the number of cached blocks without users.
func (e *evictor) Len() int { return e.n }

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

// push adds block id, last used at now.
func (e *evictor) push(id int32, now time.Duration) {
	e.pool.blocks[id].lastUsed = now
	switch {
	case e.n == 0:
		e.insertAfter(-1, id)
	case e.before(e.tail, id):
		e.insertAfter(e.tail, id)
	default:
		e.insertAfter(e.seek(id), id)
	}
	e.last = id
}

// seek returns the block after which id belongs (−1: at the head),
// walking from the block pushed last (else the tail).
func (e *evictor) seek(id int32) int32 {
	c := e.last
	if c < 0 {
		c = e.tail
	}
	bs := e.pool.blocks
	if e.before(c, id) {
		for n := bs[c].next; n >= 0 && e.before(n, id); n = bs[c].next {
			c = n
		}
		return c
	}
	for c >= 0 && !e.before(c, id) {
		c = bs[c].prev
	}
	return c
}

// insertAfter links id after block at (−1: at the head).
func (e *evictor) insertAfter(at, id int32) {
	bs := e.pool.blocks
	next := e.head
	if at >= 0 {
		next = bs[at].next
		bs[at].next = id
	} else {
		e.head = id
	}
	bs[id].prev, bs[id].next = at, next
	if next >= 0 {
		bs[next].prev = id
	} else {
		e.tail = id
	}
	e.n++
}

// remove takes block id out of the pool (it has a user again).
func (e *evictor) remove(id int32) {
	bs := e.pool.blocks
	prev, next := bs[id].prev, bs[id].next
	if prev >= 0 {
		bs[prev].next = next
	} else {
		e.head = next
	}
	if next >= 0 {
		bs[next].prev = prev
	} else {
		e.tail = prev
	}
	bs[id].prev, bs[id].next = -1, -1
	if e.last == id {
		e.last = -1
	}
	e.n--
}

// pop removes and returns the block to evict next.
func (e *evictor) pop() int32 {
	id := e.head
	e.remove(id)
	return id
}
