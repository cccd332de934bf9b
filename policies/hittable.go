package policies

// hitTable maps 64-bit keys to node indexes: open addressing with linear
// probing and backward-shift deletion (no tombstones, so constant churn
// keeps probe runs short), growing by doubling at half load. Lookups and
// inserts do not allocate once the slots have grown.
type hitTable struct {
	slots []hitSlot
	mask  uint64
	shift uint8
	n     int
	sink  int32
}

// hitSlot is one entry; node1 is the node index + 1 (0: empty).
type hitSlot struct {
	key   uint64
	node1 int32
}

// minHitSlots is the initial number of slots (a power of two).
const minHitSlots = 1024

// home is the slot where key's probe run starts (Fibonacci hashing).
func (t *hitTable) home(key uint64) uint64 {
	return (key * 0x9e3779b97f4a7c15) >> t.shift
}

// get returns the node stored under key.
func (t *hitTable) get(key uint64) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	for i := t.home(key); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.node1 == 0 {
			return 0, false
		}
		if s.key == key {
			return s.node1 - 1, true
		}
	}
}

// touch loads the home slot of each key, so that the cache misses of the
// lookups that follow overlap instead of waiting one behind another (a
// software prefetch: the loads are independent, while a lookup's probe
// loop branches on what it loaded).
func (t *hitTable) touch(keys []uint64) {
	if t.n == 0 {
		return
	}
	var x int32
	for _, k := range keys {
		x += t.slots[t.home(k)].node1
	}
	t.sink = x
}

// put stores node under key, which must not be present.
func (t *hitTable) put(key uint64, node int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.resize(max(minHitSlots, 2*len(t.slots)))
	}
	i := t.home(key)
	for t.slots[i].node1 != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = hitSlot{key: key, node1: node + 1}
	t.n++
}

// del removes key, shifting later entries of its probe run back.
func (t *hitTable) del(key uint64) {
	if t.n == 0 {
		return
	}
	i := t.home(key)
	for ; t.slots[i].key != key || t.slots[i].node1 == 0; i = (i + 1) & t.mask {
		if t.slots[i].node1 == 0 {
			return
		}
	}
	t.n--
	for {
		t.slots[i] = hitSlot{}
		j := i
		for {
			j = (j + 1) & t.mask
			if t.slots[j].node1 == 0 {
				return
			}
			// The entry at j may move to i when i lies on its probe run.
			if (j-t.home(t.slots[j].key))&t.mask >= (j-i)&t.mask {
				break
			}
		}
		t.slots[i] = t.slots[j]
		i = j
	}
}

// resize rehashes into size slots (a power of two).
func (t *hitTable) resize(size int) {
	old := t.slots
	t.slots, t.mask, t.n = make([]hitSlot, size), uint64(size-1), 0
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	for _, s := range old {
		if s.node1 != 0 {
			t.put(s.key, s.node1-1)
		}
	}
}
