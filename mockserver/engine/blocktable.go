package engine

// blockTable maps chained block hashes to block ids: open addressing with
// linear probing and backward-shift deletion, so a cache that evicts and
// registers blocks all the time keeps short probe sequences (a Go map
// under that churn fills with tombstones and its missed lookups, which
// end every prefix match, slow down about threefold). It grows by
// doubling at half load.
//
// A slot is 8 bytes: a 32-bit tag folded from the hash, which alone
// decides the slot's home, and the block id + 1 (0: empty). A tag match
// is verified against the block's own hash, so two hashes sharing a tag
// (one in 2³² pairs) never alias. Half the size of a slot holding the
// whole hash, the table (1 MB at 65,536 blocks) stays in cache far more.
type blockTable struct {
	slots  []uint64
	blocks []block // the pool's blocks, whose hash field verifies a tag match
	mask   uint64
	shift  uint8
	n      int
}

// minTableSlots is the initial number of slots (a power of two).
const minTableSlots = 1024

// newBlockTable returns an empty table over the pool's blocks.
func newBlockTable(blocks []block) blockTable {
	t := blockTable{blocks: blocks}
	t.resize(minTableSlots)
	return t
}

// len is the number of entries.
func (t *blockTable) len() int { return t.n }

// tagOf folds a hash to the 32-bit tag a slot keeps.
func tagOf(hash uint64) uint64 { return (hash ^ hash>>32) & 0xffffffff }

// slotOf packs tag and block id into a slot.
func slotOf(tag uint64, id int32) uint64 { return tag<<32 | uint64(uint32(id+1)) }

// home is the slot where a tag's probe sequence starts (Fibonacci
// hashing, so structured tags spread too).
func (t *blockTable) home(tag uint64) uint64 {
	return (tag * 0x9e3779b97f4a7c15) >> t.shift
}

// get returns the block id cached under hash.
func (t *blockTable) get(hash uint64) (int32, bool) {
	tag := tagOf(hash)
	for i := t.home(tag); ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == tag {
			if id := int32(uint32(s)) - 1; t.blocks[id].hash == hash {
				return id, true
			}
		}
	}
}

// put stores block id under hash, which must not be present.
func (t *blockTable) put(hash uint64, id int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
	t.insert(slotOf(tagOf(hash), id))
}

// insert places slot value s (not present) without growing.
func (t *blockTable) insert(s uint64) {
	i := t.home(s >> 32)
	for t.slots[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = s
	t.n++
}

// del removes block id, cached under hash, shifting later entries of its
// probe run back so no tombstone is left.
func (t *blockTable) del(hash uint64, id int32) {
	want := slotOf(tagOf(hash), id)
	i := t.home(want >> 32)
	for ; t.slots[i] != want; i = (i + 1) & t.mask {
		if t.slots[i] == 0 {
			return
		}
	}
	t.n--
	for {
		t.slots[i] = 0
		j := i
		for {
			j = (j + 1) & t.mask
			if t.slots[j] == 0 {
				return
			}
			// The entry at j may fill slot i when i lies on its probe
			// path, between its home and j.
			if (j-t.home(t.slots[j]>>32))&t.mask >= (j-i)&t.mask {
				break
			}
		}
		t.slots[i] = t.slots[j]
		i = j
	}
}

// resize rehashes into size slots (a power of two).
func (t *blockTable) resize(size int) {
	old := t.slots
	t.slots, t.mask, t.n = make([]uint64, size), uint64(size-1), 0
	t.shift = uint8(64 - log2(size))
	for _, s := range old {
		if s != 0 {
			t.insert(s)
		}
	}
}

// log2 is the base-2 logarithm of a power of two.
func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}
