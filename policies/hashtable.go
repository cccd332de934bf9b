package policies

import (
	"slices"
	"time"
)

// hashTable is the prefix hash table of AIBrix's prefix-cache router: block
// hash → the Backends a prompt containing that block was routed to. It
// holds at most capacity hashes (AIBRIX_PREFIX_CACHE_BLOCK_NUMBER), evicts
// the least recently added first, and drops hashes not added again within
// ttl (AIBrix: 20 minutes). Entries live in an arena with an intrusive
// doubly linked list, and the index is an open-addressing hitTable (a Go
// map under this constant churn fills with tombstones and slows down), so
// steady-state updates do not allocate.
type hashTable struct {
	capacity int
	ttl      time.Duration
	idx      hitTable
	slots    []hslot
	links    lruLinks // by slot
	order    lruList  // head is the most recently added
	free     []int32
	victims  []uint64 // scratch of touchVictims
}

type hslot struct {
	hash     uint64
	last     time.Duration
	backends []int32
}

func newHashTable(capacity int, ttl time.Duration) *hashTable {
	return &hashTable{capacity: capacity, ttl: ttl, order: emptyLRU}
}

// Len is the number of hashes held.
func (t *hashTable) Len() int { return t.idx.n }

// holders implements holdersFunc with the table's own slice (no copy).
func (t *hashTable) holders(h uint64, _ []int32) ([]int32, bool) {
	if s, ok := t.idx.get(h); ok {
		return t.slots[s].backends, true
	}
	return nil, true
}

// expire drops hashes last added more than ttl before now.
func (t *hashTable) expire(now time.Duration) {
	for t.order.tail >= 0 && now-t.slots[t.order.tail].last > t.ttl {
		t.remove(t.order.tail)
	}
}

// add records that backend was sent a prompt with these block hashes.
func (t *hashTable) add(hashes []uint64, backend int, now time.Duration) {
	t.touchVictims(len(hashes))
	for _, h := range hashes {
		s, ok := t.idx.get(h)
		if ok {
			t.links.unlink(&t.order, s)
		} else {
			if t.idx.n >= t.capacity {
				t.remove(t.order.tail)
			}
			s = t.alloc(h)
		}
		sl := &t.slots[s]
		sl.last = now
		if k := len(sl.backends); (k == 0 || sl.backends[k-1] != int32(backend)) && !slices.Contains(sl.backends, int32(backend)) {
			sl.backends = append(sl.backends, int32(backend))
		}
		t.links.pushFront(&t.order, s)
	}
}

// touchVictims loads the index slots of the hashes that adding n more
// would evict at most (the n least recently added beyond capacity), so
// that the cache misses of their deletions overlap instead of queuing.
// It reads the arena in eviction order, which mostly follows slot order.
func (t *hashTable) touchVictims(n int) {
	n = min(n, t.idx.n+n-t.capacity)
	if n <= 0 {
		return
	}
	t.victims = t.victims[:0]
	for s := t.order.tail; s >= 0 && len(t.victims) < n; s = t.links[s].prev {
		t.victims = append(t.victims, t.slots[s].hash)
	}
	t.idx.touch(t.victims)
}

func (t *hashTable) alloc(h uint64) int32 {
	var s int32
	if n := len(t.free); n > 0 {
		s, t.free = t.free[n-1], t.free[:n-1]
	} else {
		t.slots = append(t.slots, hslot{})
		t.links.appendNode()
		s = int32(len(t.slots) - 1)
	}
	t.slots[s].hash = h
	t.slots[s].backends = t.slots[s].backends[:0]
	t.idx.put(h, s)
	return s
}

func (t *hashTable) remove(s int32) {
	t.links.unlink(&t.order, s)
	t.idx.del(t.slots[s].hash)
	t.free = append(t.free, s)
}
