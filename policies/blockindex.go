package policies

// blockIndex is an approximate model of every Backend's prefix cache, as
// the GIE proposal describes (docs/proposals/005-prefix-cache-aware-routing-proposal in
// kubernetes-sigs/gateway-api-inference-extension): each
// Backend holds an LRU list of block hashes of bounded capacity (the
// server's num_gpu_blocks when known), and a table maps a hash to the
// Backends holding it. Nodes live in an arena linked twice (per-Backend
// LRU, per-hash chain), so steady-state updates do not allocate.
type blockIndex struct {
	defaultCap int
	table      map[uint64]int32 // hash -> first node of its chain
	nodes      []bnode
	lru        lruLinks  // by node: per-Backend LRU lists
	lists      []lruList // by Backend.Index
	free       []int32
}

type bnode struct {
	hash         uint64
	backend      int32
	hprev, hnext int32 // chain of the nodes of one hash
}

func newBlockIndex(defaultCap int) *blockIndex {
	return &blockIndex{defaultCap: defaultCap, table: make(map[uint64]int32)}
}

// holders implements holdersFunc, appending to buf.
func (x *blockIndex) holders(h uint64, buf []int32) ([]int32, bool) {
	n, ok := x.table[h]
	for ok && n >= 0 {
		buf = append(buf, x.nodes[n].backend)
		n = x.nodes[n].hnext
	}
	return buf, false
}

// find returns the node of (h, backend) or -1.
func (x *blockIndex) find(h uint64, backend int32) int32 {
	n, ok := x.table[h]
	for ok && n >= 0 {
		if x.nodes[n].backend == backend {
			return n
		}
		n = x.nodes[n].hnext
	}
	return -1
}

// capacity returns the LRU capacity of b: its num_gpu_blocks when the
// server reported it, else the default.
func (x *blockIndex) capacity(b Backend) int {
	if b.NumGPUBlocks > 0 {
		return b.NumGPUBlocks
	}
	return x.defaultCap
}

// add records that Backend b was sent a prompt with these block hashes,
// making them its most recent and evicting its least recent beyond
// capacity. It returns how many leading hashes b held before the call
// (exact unless the prompt alone exceeds b's capacity).
func (x *blockIndex) add(hashes []uint64, b Backend) int {
	l := lruListAt(&x.lists, b.Index)
	limit := x.capacity(b)
	lead := 0
	for i, h := range hashes {
		n := x.find(h, int32(b.Index))
		if n >= 0 {
			if lead == i {
				lead++
			}
			x.lru.unlink(l, n)
		} else {
			for l.n >= limit && l.tail >= 0 {
				x.evict(l, l.tail)
			}
			n = x.alloc(h, int32(b.Index))
		}
		x.lru.pushFront(l, n)
	}
	for l.n > limit && l.tail >= 0 {
		x.evict(l, l.tail)
	}
	return lead
}

func (x *blockIndex) alloc(h uint64, backend int32) int32 {
	n := arenaAlloc(&x.nodes, &x.lru, &x.free)
	first, ok := x.table[h]
	if !ok {
		first = -1
	}
	x.nodes[n] = bnode{hash: h, backend: backend, hprev: -1, hnext: first}
	if first >= 0 {
		x.nodes[first].hprev = n
	}
	x.table[h] = n
	return n
}

// evict removes node n from Backend list l and from its hash chain.
func (x *blockIndex) evict(l *lruList, n int32) {
	x.lru.unlink(l, n)
	nd := &x.nodes[n]
	switch {
	case nd.hprev >= 0:
		x.nodes[nd.hprev].hnext = nd.hnext
	case nd.hnext >= 0:
		x.table[nd.hash] = nd.hnext
	default:
		delete(x.table, nd.hash)
	}
	if nd.hnext >= 0 {
		x.nodes[nd.hnext].hprev = nd.hprev
	}
	x.free = append(x.free, n)
}
