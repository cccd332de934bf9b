package engine

// blockTable maps chained block hashes to the ids of the blocks cached
// under them: open addressing with linear probing over 8-byte slots.
//
// A slot holds a 32-bit tag folded from the hash, which alone decides the
// slot's home, and the block id + 1. Every tag match is verified against
// the block's own record (its hash, and depth > 0 while it is
// registered), so two hashes sharing a tag (one in 2³² pairs) never alias.
//
// Eviction does not touch the table: an evicted block's entry goes stale
// (its record no longer verifies), lookups that meet a stale entry of
// their own tag turn it into a tombstone, and inserts reuse tombstones.
// When live, stale and tombstone slots reach half the table, it is
// rebuilt from the block records. The table has three slots per block
// (1.5 MB at 65,536 blocks; its size need not be a power of two), so a
// rebuild, which reads every block record, comes at most once per
// NumGPUBlocks/2 inserts. Deleting eagerly instead cost a cache miss
// into the table for every evicted block, a fifth of the simulator's
// time on a full cache.
type blockTable struct {
	slots  []uint64
	blocks []block // the pool's blocks, whose records verify a tag match
	size   uint64  // len(slots)
	used   int     // non-empty slots: live and stale entries, tombstones
	sink   uint64
}

// tombstone marks a slot whose entry went stale (tag 1, no block).
const tombstone = 1 << 32

// newBlockTable returns an empty table over the pool's blocks.
func newBlockTable(blocks []block) blockTable {
	size := max(1024, 3*len(blocks))
	return blockTable{blocks: blocks, slots: make([]uint64, size), size: uint64(size)}
}

// tagOf folds a hash to the 32-bit tag a slot keeps.
func tagOf(hash uint64) uint64 { return (hash ^ hash>>32) & 0xffffffff }

// slotOf packs tag and block id into a slot.
func slotOf(tag uint64, id int32) uint64 { return tag<<32 | uint64(uint32(id+1)) }

// home is the slot where a tag's probe sequence starts: the tag times an
// odd constant (so structured tags spread too), mapped onto the slots by
// a multiply and shift (Lemire's fast range reduction).
func (t *blockTable) home(tag uint64) uint64 {
	return ((tag * 0x9e3779b9) & 0xffffffff * t.size) >> 32
}

// next is the slot after i, wrapping around.
func (t *blockTable) next(i uint64) uint64 {
	if i++; i == t.size {
		return 0
	}
	return i
}

// get returns the block cached under hash. A stale entry of hash's tag
// met on the way becomes a tombstone.
func (t *blockTable) get(hash uint64) (int32, bool) {
	tag := tagOf(hash)
	for i := t.home(tag); ; i = t.next(i) {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 != tag || uint32(s) == 0 {
			continue
		}
		id := int32(uint32(s)) - 1
		b := &t.blocks[id]
		if b.depth > 0 && b.hash == hash {
			return id, true
		}
		if b.depth == 0 || tagOf(b.hash) != tag {
			t.slots[i] = tombstone
		}
	}
}

// touch loads the home slot of each hash, so that the cache misses of
// the lookups that follow overlap instead of waiting one behind another
// (a software prefetch: the loads are independent, while a lookup's
// probe loop branches on what it loaded).
func (t *blockTable) touch(hashes []uint64) {
	var x uint64
	for _, h := range hashes {
		x += t.slots[t.home(tagOf(h))]
	}
	t.sink = x
}

// insert stores block id under hash unless hash is present, and reports
// whether it stored it, in the one probe sequence a lookup makes: the
// new entry takes the first tombstone on the way, else the empty slot
// that ends it (a lookup then an insert probed twice, 4 % of the
// simulator's time on the Mooncake hour). Call it before the block's
// record holds hash, so a rebuild here does not insert the block twice.
func (t *blockTable) insert(hash uint64, id int32) bool {
	if 2*(t.used+1) > len(t.slots) {
		t.rebuild()
	}
	tag := tagOf(hash)
	free := int64(-1)
	i := t.home(tag)
	for ; ; i = t.next(i) {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if s == tombstone {
			if free < 0 {
				free = int64(i)
			}
			continue
		}
		if s>>32 != tag {
			continue
		}
		b := &t.blocks[int32(uint32(s))-1]
		if b.depth > 0 && b.hash == hash {
			return false
		}
		if b.depth == 0 || tagOf(b.hash) != tag {
			t.slots[i] = tombstone
			if free < 0 {
				free = int64(i)
			}
		}
	}
	if free >= 0 {
		i = uint64(free)
	} else {
		t.used++
	}
	t.slots[i] = slotOf(tag, id)
	return true
}

// rebuild empties the table and inserts every block registered in it.
func (t *blockTable) rebuild() {
	t.clear()
	for id := range t.blocks {
		if b := &t.blocks[id]; b.depth > 0 && b.group == 0 { // keyed blocks live in blockGroups
			i := t.home(tagOf(b.hash))
			for t.slots[i] != 0 {
				i = t.next(i)
			}
			t.slots[i] = slotOf(tagOf(b.hash), int32(id))
			t.used++
		}
	}
}

// clear empties the table.
func (t *blockTable) clear() {
	clear(t.slots)
	t.used = 0
}

// len counts the registered blocks the table finds (each once): O(slots),
// for tests.
func (t *blockTable) len() int {
	seen := make(map[uint32]bool)
	for _, s := range t.slots {
		if s == 0 || uint32(s) == 0 {
			continue
		}
		id := int32(uint32(s)) - 1
		if b := &t.blocks[id]; b.depth > 0 && tagOf(b.hash) == s>>32 {
			seen[uint32(id)] = true
		}
	}
	return len(seen)
}
