package engine

// evictor holds the cached blocks nobody references (reference count 0)
// in the order a policy evicts them (see EvictLRU and the other policies).
// Every operation is O(1) or O(log n) in the number of blocks it holds.
type evictor interface {
	// Len is the number of cached blocks without users.
	Len() int
	// push adds block id, whose last user has just released it (the
	// pool's lastUsed holds when).
	push(id int32)
	// remove takes block id out (it has a user again).
	remove(id int32)
	// pop removes and returns the block to evict next; Len must be > 0.
	pop() int32
}

// lruEvictor is vLLM V1's free block queue for cached blocks: a doubly
// linked list through the blocks in release order, so every operation is
// O(1). The engine releases a request's blocks tail first, which puts its
// deepest block first in line.
type lruEvictor struct {
	pool       *blockPool
	head, tail int32 // −1 when empty
	n          int
}

func (e *lruEvictor) Len() int { return e.n }

func (e *lruEvictor) push(id int32) {
	bs := e.pool.blocks
	bs[id].prev, bs[id].next = e.tail, -1
	if e.tail >= 0 {
		bs[e.tail].next = id
	} else {
		e.head = id
	}
	e.tail = id
	e.n++
}

func (e *lruEvictor) remove(id int32) {
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
	e.n--
}

func (e *lruEvictor) pop() int32 {
	id := e.head
	e.remove(id)
	return id
}
