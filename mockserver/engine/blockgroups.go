package engine

import "github.com/tracebench/tracebench/internal/blockgroup"

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
	byKey map[uint64]int32 // the hash of a group's first block → group
	arena blockgroup.Arena // the groups: block id by position
	// last is the group found or made last (−1 none): consecutive blocks
	// of one group ask for it again.
	last    int32
	lastKey uint64
}

// groupSize is the most blocks one group holds.
const groupSize = blockgroup.Size

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
	id := g.arena.Member(i, k)
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
	if !g.arena.Add(i, k, id) {
		return 0, false
	}
	return i*groupSize + int32(k) + 1, true
}

// make indexes an empty group under key.
func (g *blockGroups) make(key uint64) int32 {
	i := g.arena.New(key)
	g.byKey[key] = i
	g.last, g.lastKey = i, key
	return i
}

// drop uncaches the block with group reference ref, deleting its group
// when it was the group's last block.
func (g *blockGroups) drop(ref int32) {
	i, k := (ref-1)/groupSize, int((ref-1)%groupSize)
	if !g.arena.Remove(i, k) {
		return
	}
	delete(g.byKey, g.arena.Key(i))
	if g.last == i {
		g.last = -1
	}
}

// clear uncaches every block.
func (g *blockGroups) clear() {
	clear(g.byKey)
	g.arena.Reset()
	g.last = -1
}

// len is the number of blocks cached in groups.
func (g *blockGroups) len() int {
	n := 0
	for _, i := range g.byKey {
		n += int(g.arena.Len(i))
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
