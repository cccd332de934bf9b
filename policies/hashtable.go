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
// doubly linked list, so steady-state updates do not allocate.
type hashTable struct {
	capacity   int
	ttl        time.Duration
	idx        map[uint64]int32
	slots      []hslot
	head, tail int32 // head is the most recently added; -1 when empty
	free       []int32
}

type hslot struct {
	hash       uint64
	last       time.Duration
	prev, next int32
	backends   []int32
}

func newHashTable(capacity int, ttl time.Duration) *hashTable {
	return &hashTable{capacity: capacity, ttl: ttl, idx: make(map[uint64]int32), head: -1, tail: -1}
}

// Len is the number of hashes held.
func (t *hashTable) Len() int { return len(t.idx) }

// holders implements holdersFunc with the table's own slice (no copy).
func (t *hashTable) holders(h uint64, _ []int32) ([]int32, bool) {
	if s, ok := t.idx[h]; ok {
		return t.slots[s].backends, true
	}
	return nil, true
}

// expire drops hashes last added more than ttl before now.
func (t *hashTable) expire(now time.Duration) {
	for t.tail >= 0 && now-t.slots[t.tail].last > t.ttl {
		t.remove(t.tail)
	}
}

// add records that backend was sent a prompt with these block hashes.
func (t *hashTable) add(hashes []uint64, backend int, now time.Duration) {
	for _, h := range hashes {
		s, ok := t.idx[h]
		if ok {
			t.unlink(s)
		} else {
			if len(t.idx) >= t.capacity {
				t.remove(t.tail)
			}
			s = t.alloc(h)
		}
		sl := &t.slots[s]
		sl.last = now
		if k := len(sl.backends); (k == 0 || sl.backends[k-1] != int32(backend)) && !slices.Contains(sl.backends, int32(backend)) {
			sl.backends = append(sl.backends, int32(backend))
		}
		t.pushFront(s)
	}
}

func (t *hashTable) alloc(h uint64) int32 {
	var s int32
	if n := len(t.free); n > 0 {
		s, t.free = t.free[n-1], t.free[:n-1]
	} else {
		t.slots = append(t.slots, hslot{})
		s = int32(len(t.slots) - 1)
	}
	t.slots[s].hash = h
	t.slots[s].backends = t.slots[s].backends[:0]
	t.idx[h] = s
	return s
}

func (t *hashTable) remove(s int32) {
	t.unlink(s)
	delete(t.idx, t.slots[s].hash)
	t.free = append(t.free, s)
}

func (t *hashTable) unlink(s int32) {
	sl := &t.slots[s]
	if sl.prev >= 0 {
		t.slots[sl.prev].next = sl.next
	} else {
		t.head = sl.next
	}
	if sl.next >= 0 {
		t.slots[sl.next].prev = sl.prev
	} else {
		t.tail = sl.prev
	}
	sl.prev, sl.next = -1, -1
}

func (t *hashTable) pushFront(s int32) {
	sl := &t.slots[s]
	sl.prev, sl.next = -1, t.head
	if t.head >= 0 {
		t.slots[t.head].prev = s
	}
	t.head = s
	if t.tail < 0 {
		t.tail = s
	}
}
