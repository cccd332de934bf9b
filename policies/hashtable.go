package policies

import (
	"slices"
	"time"

	"github.com/tracebench/tracebench/internal/blockgroup"
)

// hashTable is the prefix hash table of AIBrix's prefix-cache router: block
// hash → the Backends a prompt containing that block was routed to. It
// holds at most capacity blocks (AIBRIX_PREFIX_CACHE_BLOCK_NUMBER), evicts
// the least recently added first, and drops blocks not added again within
// ttl (AIBrix: 20 minutes). Entries live in an arena with an intrusive
// doubly linked list, and the index is an open-addressing hitTable (a Go
// map under this constant churn fills with tombstones and slows down), so
// steady-state updates do not allocate.
//
// A block is named by a blockRef. Blocks keyed alone (k < 0) have one index
// entry each. The blocks of one run inside a trace block of a block-id
// prompt (blockRefs) share one index entry, a group record that lists the
// arena slot of each position: a Mooncake prompt then costs one index
// probe per 512 tokens instead of one per 32. Each block is still its own
// entry in the eviction order and counts against capacity, so the table
// holds, evicts and expires exactly what a table of one hash per block
// would (TestHashTableMatchesModel).
type hashTable struct {
	capacity int
	ttl      time.Duration
	n        int      // blocks held
	idx      hitTable // key → arena slot, or groupBit | group
	slots    []hslot
	links    lruLinks // by slot
	order    lruList  // head is the most recently added
	free     []int32
	groups   blockgroup.Arena // slot by position, under the run's key
	keys     []uint64         // scratch of resolve and touchVictims
	sink     int32
}

// hslot is one block held.
type hslot struct {
	key      uint64 // the block's index key (its own, or its group's)
	last     time.Duration
	backends []int32
	group    int32 // group record, −1 for a block keyed alone
	k        int32 // position in the group
}

// groupBit marks an index entry that names a group record.
const groupBit = 1 << 30

func newHashTable(capacity int, ttl time.Duration) *hashTable {
	return &hashTable{capacity: capacity, ttl: ttl, order: emptyLRU}
}

// Len is the number of blocks held.
func (t *hashTable) Len() int { return t.n }

// find returns the arena slot holding r, −1 when none.
func (t *hashTable) find(r blockRef) int32 {
	v, ok := t.idx.get(r.key)
	if !ok {
		return -1
	}
	return t.member(v, r.k)
}

// member returns the slot of position k in index entry v, −1 when none.
func (t *hashTable) member(v int32, k int8) int32 {
	switch {
	case k < 0 && v&groupBit == 0:
		return v
	case k >= 0 && v&groupBit != 0:
		return t.groups.Member(v&^groupBit, int(k))
	}
	return -1
}

// resolve appends, for each ref, its arena slot + 1 (0 when not held),
// probing the index once per key. The values are valid until the table
// changes; holdersAt reads them.
func (t *hashTable) resolve(refs []blockRef, dst []uint64) []uint64 {
	t.keys = runKeys(t.keys[:0], refs)
	t.idx.touch(t.keys) // the probes' cache misses overlap
	var v int32
	var ok bool
	for i, r := range refs {
		if i == 0 || r.k <= 0 || r.key != refs[i-1].key {
			v, ok = t.idx.get(r.key)
		}
		s := int32(-1)
		if ok {
			s = t.member(v, r.k)
		}
		dst = append(dst, uint64(s+1))
	}
	return dst
}

// runKeys appends the index key of each run of refs.
func runKeys(dst []uint64, refs []blockRef) []uint64 {
	for i, r := range refs {
		if i == 0 || r.k <= 0 || r.key != refs[i-1].key {
			dst = append(dst, r.key)
		}
	}
	return dst
}

// holdersAt implements holdersFunc over resolve's values with the table's
// own slice (no copy).
func (t *hashTable) holdersAt(ref uint64, _ []int32) ([]int32, bool) {
	if ref == 0 {
		return nil, true
	}
	return t.slots[ref-1].backends, true
}

// holders returns the Backends holding r (tests).
func (t *hashTable) holders(r blockRef) []int32 {
	if s := t.find(r); s >= 0 {
		return t.slots[s].backends
	}
	return nil
}

// expire drops blocks last added more than ttl before now.
func (t *hashTable) expire(now time.Duration) {
	for t.order.tail >= 0 && now-t.slots[t.order.tail].last > t.ttl {
		t.remove(t.order.tail)
	}
}

// add records that backend was sent a prompt with these blocks.
func (t *hashTable) add(refs []blockRef, backend int, now time.Duration) {
	t.touchVictims(len(refs))
	g, gkey := int32(-1), uint64(0) // the current run's group
	for _, r := range refs {
		s := int32(-1)
		if r.k < 0 {
			s = t.find(r)
		} else {
			if g < 0 || gkey != r.key {
				g, gkey = t.groupOf(r.key), r.key
			}
			if g >= 0 {
				s = t.groups.Member(g, int(r.k))
			}
		}
		if s >= 0 {
			t.links.unlink(&t.order, s)
		} else {
			if t.n >= t.capacity && t.remove(t.order.tail) == g {
				g = -1 // its last block was evicted: the group is gone
			}
			s = t.alloc(r, &g)
		}
		sl := &t.slots[s]
		sl.last = now
		if k := len(sl.backends); (k == 0 || sl.backends[k-1] != int32(backend)) && !slices.Contains(sl.backends, int32(backend)) {
			sl.backends = append(sl.backends, int32(backend))
		}
		t.links.pushFront(&t.order, s)
	}
}

// groupOf returns the group record indexed under key, −1 when none.
func (t *hashTable) groupOf(key uint64) int32 {
	if v, ok := t.idx.get(key); ok && v&groupBit != 0 {
		return v &^ groupBit
	}
	return -1
}

// touchVictims loads the index slots and group records of the blocks that
// adding n more would evict at most (the n least recently added beyond
// capacity), so that the cache misses of their removal overlap instead of
// queuing. It reads the arena in eviction order, which mostly follows
// slot order.
func (t *hashTable) touchVictims(n int) {
	n = min(n, t.n+n-t.capacity)
	if n <= 0 {
		return
	}
	t.keys = t.keys[:0]
	var x int32
	for s := t.order.tail; s >= 0 && n > 0; s, n = t.links[s].prev, n-1 {
		sl := &t.slots[s]
		if sl.group >= 0 {
			x += t.groups.Len(sl.group)
		}
		if k := len(t.keys); k == 0 || t.keys[k-1] != sl.key {
			t.keys = append(t.keys, sl.key)
		}
	}
	t.sink = x
	t.idx.touch(t.keys)
}

// alloc stores r in a free arena slot; for a grouped r it adds the slot
// to group *g, first creating the group when *g < 0.
func (t *hashTable) alloc(r blockRef, g *int32) int32 {
	s := arenaAlloc(&t.slots, &t.links, &t.free)
	sl := &t.slots[s]
	sl.key, sl.backends, sl.group, sl.k = r.key, sl.backends[:0], -1, int32(r.k)
	t.n++
	if r.k < 0 {
		t.idx.put(r.key, s)
		return s
	}
	if *g < 0 {
		*g = t.newGroup(r.key)
	}
	t.groups.Add(*g, int(r.k), s) // the position is free: r was not found
	sl.group = *g
	return s
}

// newGroup indexes an empty group record under key.
func (t *hashTable) newGroup(key uint64) int32 {
	g := t.groups.New(key)
	t.idx.put(key, groupBit|g)
	return g
}

// remove drops the block in slot s. It returns the group it deleted along
// with the group's last block, −1 when none.
func (t *hashTable) remove(s int32) int32 {
	t.links.unlink(&t.order, s)
	t.free = append(t.free, s)
	t.n--
	sl := &t.slots[s]
	if sl.group < 0 {
		t.idx.del(sl.key)
		return -1
	}
	g := sl.group
	if !t.groups.Remove(g, int(sl.k)) {
		return -1
	}
	t.idx.del(sl.key)
	return g
}
