package engine

// blockGroups is the prefix table of keyed blocks (Request.PromptKeys with
// Request.KeyRun): the blocks of one run of keys (one trace block id) are
// indexed as groups of up to groupSize consecutive blocks, under the hash
// of the group's first block, each block by its position in the group.
// That is exact: within a run the later keys are a function of the first,
// so the hash of a group's first block (which chains every key before it)
// fixes every block of the group, and a block's hash fixes its group and
// position.
//
// A Mooncake prompt then costs one index probe per 256 tokens instead of
// one per 16-token block, and the index is small enough to stay in cache
// (a few thousand groups per engine). Eviction updates the group at once
// (no stale entries, no rebuilds): a group is deleted with its last block.
type blockGroups struct {
	byKey  map[uint64]int32 // the hash of a group's first block → group
	groups []blockGroup
	free   []int32
	// last is the group found or made last (−1 none): consecutive blocks
	// of one group ask for it again.
	last    int32
	lastKey uint64
}

// blockGroup is one group: block id + 1 at each position (0: none cached).
type blockGroup struct {
	key     uint64
	members [groupSize]int32
	live    int32
}

// groupSize is the most blocks one group holds.
const groupSize = 16

func newBlockGroups() blockGroups {
	return blockGroups{byKey: make(map[uint64]int32), last: -1}
}

// find returns the group indexed under key, −1 when none.
func (g *blockGroups) find(key uint64) int32 {
	if g.last >= 0 && g.lastKey == key {
		return g.last
	}
	i, ok := g.byKey[key]
	if !ok {
		return -1
	}
	g.last, g.lastKey = i, key
	return i
}

// get returns the block cached at position k of the group under key.
func (g *blockGroups) get(key uint64, k int) (int32, bool) {
	i := g.find(key)
	if i < 0 {
		return 0, false
	}
	id := g.groups[i].members[k] - 1
	return id, id >= 0
}

// insert caches block id at position k of the group under key, making the
// group if needed, and returns the block's group reference (see block).
// It reports false, storing nothing, when a block is already cached
// there: the first stays the cached one, as in vLLM.
func (g *blockGroups) insert(key uint64, k int, id int32) (int32, bool) {
	i := g.find(key)
	if i < 0 {
		i = g.make(key)
	}
	gr := &g.groups[i]
	if gr.members[k] != 0 {
		return 0, false
	}
	gr.members[k] = id + 1
	gr.live++
	return i*groupSize + int32(k) + 1, true
}

// make indexes an empty group under key.
func (g *blockGroups) make(key uint64) int32 {
	var i int32
	if n := len(g.free); n > 0 {
		i, g.free = g.free[n-1], g.free[:n-1]
	} else {
		g.groups = append(g.groups, blockGroup{})
		i = int32(len(g.groups) - 1)
	}
	g.groups[i].key = key
	g.byKey[key] = i
	g.last, g.lastKey = i, key
	return i
}

// drop uncaches the block with group reference ref, deleting its group
// when it was the group's last block.
func (g *blockGroups) drop(ref int32) {
	i, k := (ref-1)/groupSize, (ref-1)%groupSize
	gr := &g.groups[i]
	gr.members[k] = 0
	if gr.live--; gr.live > 0 {
		return
	}
	delete(g.byKey, gr.key)
	g.free = append(g.free, i)
	if g.last == i {
		g.last = -1
	}
}

// clear uncaches every block.
func (g *blockGroups) clear() {
	clear(g.byKey)
	g.groups, g.free, g.last = g.groups[:0], g.free[:0], -1
}

// len is the number of blocks cached in groups.
func (g *blockGroups) len() int {
	n := 0
	for _, i := range g.byKey {
		n += int(g.groups[i].live)
	}
	return n
}

// keyRuns says which of a request's blocks are keyed and how they group:
// the first keyed blocks stand for Request.PromptKeys, in runs of run.
type keyRuns struct {
	keyed, run int
}

// pos returns block i's position in its group, and false when block i is
// not keyed (it is indexed in the blockTable by its hash). Groups start at
// every run's first block and every groupSize blocks after it, so the
// group's first block is block i − k.
func (r keyRuns) pos(i int) (int, bool) {
	if i >= r.keyed {
		return 0, false
	}
	return (i % r.run) % groupSize, true
}
