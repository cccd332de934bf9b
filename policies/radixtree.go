package policies

import (
	"slices"
	"time"

	"github.com/tracebench/tracebench/internal/minheap"
)

// symbol is what a radix tree's edges are made of: bytes of text, token
// ids or block ids.
type symbol interface{ ~uint8 | ~int | ~uint64 }

// radixTree is an approximate multi-tenant radix tree in the manner of
// SGLang's cache-aware router: every node records which Backends
// (tenants) were sent a prompt passing through it and when. A tenant's
// nodes always form a prefix-closed subtree, so the deepest node that
// lists a Backend gives that Backend's longest cached prefix.
type radixTree[S symbol] struct {
	root   *rnode[S]
	weight int   // characters per symbol, for size accounting
	size   []int // by Backend.Index: characters attributed to it
	seq    uint64
}

type rnode[S symbol] struct {
	label    []S
	children map[S]*rnode[S]
	parent   *rnode[S]
	tenants  []tenantMark
	seq      uint64 // creation order: a total order for eviction ties
}

type tenantMark struct {
	backend int32
	last    time.Duration
}

func newRadixTree[S symbol](weight int) *radixTree[S] {
	return &radixTree[S]{root: &rnode[S]{children: map[S]*rnode[S]{}}, weight: weight}
}

// match sets best[pos] to the number of leading symbols of key held by the
// Backend at position pos of set, for every Backend the tree lists.
func (t *radixTree[S]) match(key []S, set *backendSet, best []int) {
	n, i := t.root, 0
	for i < len(key) {
		c := n.children[key[i]]
		if c == nil {
			return
		}
		l := commonPrefix(c.label, key[i:])
		for _, tm := range c.tenants {
			if pos, ok := set.lookup(int(tm.backend)); ok {
				best[pos] = i + l
			}
		}
		i += l
		if l < len(c.label) {
			return
		}
		n = c
	}
}

// insert records key as sent to backend at now, splitting edges as needed.
func (t *radixTree[S]) insert(key []S, backend int, now time.Duration) {
	n, i := t.root, 0
	for i < len(key) {
		c := n.children[key[i]]
		if c == nil {
			c = t.newNode(slices.Clone(key[i:]), n)
			if n.children == nil {
				n.children = map[S]*rnode[S]{}
			}
			n.children[key[i]] = c
			t.addTenant(c, backend, now)
			return
		}
		l := commonPrefix(c.label, key[i:])
		if l < len(c.label) {
			c = t.split(c, l)
		}
		t.addTenant(c, backend, now)
		i += l
		n = c
	}
}

// Size returns the characters attributed to Backend idx.
func (t *radixTree[S]) Size(idx int) int {
	if idx < 0 || idx >= len(t.size) {
		return 0
	}
	return t.size[idx]
}

func (t *radixTree[S]) newNode(label []S, parent *rnode[S]) *rnode[S] {
	t.seq++
	return &rnode[S]{label: label, parent: parent, seq: t.seq}
}

// split cuts c after l symbols and returns the new upper node, which
// inherits c's tenants (sizes are unchanged: the label is only divided).
func (t *radixTree[S]) split(c *rnode[S], l int) *rnode[S] {
	mid := t.newNode(c.label[:l], c.parent)
	mid.tenants = slices.Clone(c.tenants)
	mid.children = map[S]*rnode[S]{c.label[l]: c}
	c.parent.children[c.label[0]] = mid
	c.label, c.parent = c.label[l:], mid
	return mid
}

func (t *radixTree[S]) addTenant(n *rnode[S], backend int, now time.Duration) {
	for i := range n.tenants {
		if int(n.tenants[i].backend) == backend {
			n.tenants[i].last = now
			return
		}
	}
	n.tenants = append(n.tenants, tenantMark{backend: int32(backend), last: now})
	for backend >= len(t.size) {
		t.size = append(t.size, 0)
	}
	t.size[backend] += len(n.label) * t.weight
}

func commonPrefix[S symbol](a, b []S) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// evict removes, for every Backend holding more than maxChars characters,
// its least recently used leaves (ties by creation order) until it fits,
// as SGLang's evict_tenant_by_size does; nodes left without tenants are
// deleted.
func (t *radixTree[S]) evict(maxChars int) {
	for b := range t.size {
		if t.size[b] > maxChars {
			t.evictTenant(int32(b), maxChars)
		}
	}
}

func (t *radixTree[S]) evictTenant(b int32, maxChars int) {
	var leaves []tenantLeaf[S]
	stack := []*rnode[S]{t.root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range n.children {
			stack = append(stack, c)
		}
		if n != t.root && tenantIndex(n, b) >= 0 && !childHolds(n, b) {
			leaves = append(leaves, tenantLeaf[S]{n, b})
		}
	}
	h := minheap.From(leaves)
	for t.size[b] > maxChars {
		leaf, ok := h.Pop()
		if !ok {
			break
		}
		n := leaf.n
		k := tenantIndex(n, b)
		n.tenants = slices.Delete(n.tenants, k, k+1)
		t.size[b] -= len(n.label) * t.weight
		p := n.parent
		if len(n.tenants) == 0 {
			delete(p.children, n.label[0])
		}
		if p != t.root && tenantIndex(p, b) >= 0 && !childHolds(p, b) {
			h.Push(tenantLeaf[S]{p, b})
		}
	}
}

func tenantIndex[S symbol](n *rnode[S], b int32) int {
	for i, tm := range n.tenants {
		if tm.backend == b {
			return i
		}
	}
	return -1
}

func childHolds[S symbol](n *rnode[S], b int32) bool {
	for _, c := range n.children {
		if tenantIndex(c, b) >= 0 {
			return true
		}
	}
	return false
}

// tenantLeaf is a leaf of Backend b's part of the tree, ordered by b's
// last access to it, then by creation.
type tenantLeaf[S symbol] struct {
	n *rnode[S]
	b int32
}

// Before reports whether l was used before o (ties: created before).
func (l tenantLeaf[S]) Before(o tenantLeaf[S]) bool {
	la, lo := l.n.tenants[tenantIndex(l.n, l.b)].last, o.n.tenants[tenantIndex(o.n, o.b)].last
	if la != lo {
		return la < lo
	}
	return l.n.seq < o.n.seq
}
