package engine

// blockTable maps chained block hashes to block ids: open addressing with
// linear probing and backward-shift deletion, so a cache that evicts and
// registers blocks all the time keeps short probe sequences (a Go map
// under that churn fills with tombstones and its missed lookups, which
// end every prefix match, slow down about threefold). It grows by
// doubling at half load.
type blockTable struct {
	slots []tableSlot
	mask  uint64
	shift uint8
	n     int
}

// tableSlot is one entry; id1 is the block id + 1 (0: empty).
type tableSlot struct {
	hash uint64
	id1  int32
}

// minTableSlots is the initial number of slots (a power of two).
const minTableSlots = 1024

func newBlockTable() blockTable {
	var t blockTable
	t.resize(minTableSlots)
	return t
}

// len is the number of entries.
func (t *blockTable) len() int { return t.n }

// home is the slot where hash's probe sequence starts (Fibonacci hashing
// of the already mixed hash, so structured hashes spread too).
func (t *blockTable) home(hash uint64) uint64 {
	return (hash * 0x9e3779b97f4a7c15) >> t.shift
}

// get returns the block id cached under hash.
func (t *blockTable) get(hash uint64) (int32, bool) {
	for i := t.home(hash); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.id1 == 0 {
			return 0, false
		}
		if s.hash == hash {
			return s.id1 - 1, true
		}
	}
}

// put stores id under hash, which must not be present.
func (t *blockTable) put(hash uint64, id int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(2 * len(t.slots))
	}
	i := t.home(hash)
	for t.slots[i].id1 != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = tableSlot{hash: hash, id1: id + 1}
	t.n++
}

// del removes hash, shifting later entries of its probe run back so no
// tombstone is left.
func (t *blockTable) del(hash uint64) {
	i := t.home(hash)
	for ; t.slots[i].hash != hash || t.slots[i].id1 == 0; i = (i + 1) & t.mask {
		if t.slots[i].id1 == 0 {
			return
		}
	}
	t.n--
	for {
		t.slots[i] = tableSlot{}
		j := i
		for {
			j = (j + 1) & t.mask
			if t.slots[j].id1 == 0 {
				return
			}
			// The entry at j may fill slot i when i lies on its probe
			// path, between its home and j.
			if (j-t.home(t.slots[j].hash))&t.mask >= (j-i)&t.mask {
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
	t.slots, t.mask, t.n = make([]tableSlot, size), uint64(size-1), 0
	t.shift = uint8(64 - log2(size))
	for _, s := range old {
		if s.id1 != 0 {
			t.put(s.hash, s.id1-1)
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
