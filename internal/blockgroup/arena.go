// Package blockgroup keeps the group records of a prefix index that
// covers a run of consecutive cache blocks with one entry: the blocks of a
// group are held by position, each as an id, and a record is reused once
// its last block is gone. The mock engine's prefix table and the
// prefix-cache router's hash index both index trace block ids this way.
package blockgroup

// Size is the most blocks one group holds.
const Size = 16

// Arena holds group records, reusing freed ones. The zero Arena is empty
// and ready to use. Group numbers are int32 indexes into it, valid until
// the group is freed.
type Arena struct {
	groups []group
	free   []int32
}

// group is one record: the key it is indexed under, member id + 1 by
// position (0: none), and how many members it holds.
type group struct {
	key     uint64
	members [Size]int32
	n       int32
}

// New returns an empty group recorded under key.
func (a *Arena) New(key uint64) int32 {
	var g int32
	if n := len(a.free); n > 0 {
		g, a.free = a.free[n-1], a.free[:n-1]
	} else {
		a.groups = append(a.groups, group{})
		g = int32(len(a.groups) - 1)
	}
	a.groups[g].key = key
	return g
}

// Key returns the key group g was made under.
func (a *Arena) Key(g int32) uint64 { return a.groups[g].key }

// Len returns how many members group g holds.
func (a *Arena) Len(g int32) int32 { return a.groups[g].n }

// Member returns the id held at position k (0 ≤ k < Size) of group g, −1
// when none.
func (a *Arena) Member(g int32, k int) int32 { return a.groups[g].members[k] - 1 }

// Add holds id (≥ 0) at position k of group g. It reports false, storing
// nothing, when the position is already held.
func (a *Arena) Add(g int32, k int, id int32) bool {
	gr := &a.groups[g]
	if gr.members[k] != 0 {
		return false
	}
	gr.members[k] = id + 1
	gr.n++
	return true
}

// Remove empties the held position k of group g. It reports whether that
// was the group's last member, in which case the group is freed.
func (a *Arena) Remove(g int32, k int) bool {
	gr := &a.groups[g]
	gr.members[k] = 0
	if gr.n--; gr.n > 0 {
		return false
	}
	a.free = append(a.free, g)
	return true
}

// Reset frees every group.
func (a *Arena) Reset() {
	a.groups, a.free = a.groups[:0], a.free[:0]
}
