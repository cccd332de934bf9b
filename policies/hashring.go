package policies

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// hashRing is a consistent-hash ring of replication points per Backend,
// keyed by Backend.ID, so removing a Backend moves only its keys. It is
// rebuilt when the Backends (Index and ID) change.
type hashRing struct {
	// replication is the number of points per Backend.
	replication int
	// sep stands between a Backend's ID and its point number in the
	// hashed name of a point ("" for KubeAI's "ID0", "-" for "ID-0").
	sep     string
	points  []ringPoint
	members []ringMember
}

type ringPoint struct {
	hash  uint64
	index int32 // Backend.Index
	// pos is the Backend's position in the Backends the ring was synced
	// to (sync rebuilds the ring when a position changes).
	pos int32
}

type ringMember struct {
	index int
	id    string
}

// sync rebuilds the ring when bs differs from the Backends it was built
// from.
func (h *hashRing) sync(bs []Backend) {
	same := len(bs) == len(h.members)
	for i := 0; same && i < len(bs); i++ {
		same = bs[i].Index == h.members[i].index && bs[i].ID == h.members[i].id
	}
	if same {
		return
	}
	h.members, h.points = h.members[:0], h.points[:0]
	var buf []byte
	for pos, b := range bs {
		h.members = append(h.members, ringMember{index: b.Index, id: b.ID})
		for i := 0; i < h.replication; i++ {
			buf = strconv.AppendInt(append(append(buf[:0], b.ID...), h.sep...), int64(i), 10)
			h.points = append(h.points, ringPoint{hash: xxhash.Sum64(buf), index: int32(b.Index), pos: int32(pos)})
		}
	}
	slices.SortFunc(h.points, func(a, b ringPoint) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), int(a.index-b.index))
	})
}

// at returns the k-th point clockwise from position start of search.
func (h *hashRing) at(start, k int) ringPoint { return h.points[(start+k)%len(h.points)] }

// search returns the position of the first point clockwise from key (it
// may be len(points): wrap it).
func (h *hashRing) search(key uint64) int {
	start, _ := slices.BinarySearchFunc(h.points, key, func(p ringPoint, k uint64) int {
		return cmp.Compare(p.hash, k)
	})
	return start
}

// newHashRing returns a ring whose replication is parameter replication
// (points per Backend, 1..65536), with sep between ID and point number.
func newHashRing(p Params, sep string) (hashRing, error) {
	n, err := p.Int("replication", 1, 1<<16)
	return hashRing{replication: n, sep: sep}, err
}

// home syncs the ring to bs and returns the search position of key and
// the position in bs of the Backend whose point is the first clockwise.
func (h *hashRing) home(bs []Backend, key uint64) (start, pos int) {
	h.sync(bs)
	start = h.search(key)
	return start, int(h.at(start, 0).pos)
}
