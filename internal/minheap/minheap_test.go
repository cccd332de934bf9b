package minheap

import (
	"cmp"
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
)

// item orders by key, then seq when bySeq (else equal keys tie).
type item struct {
	key, seq int
	bySeq    bool
}

func (a item) Before(b item) bool {
	if a.bySeq {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) < 0
	}
	return a.key < b.key
}

// refHeap is a container/heap of items, the reference order.
type refHeap []item

func (h refHeap) Len() int           { return len(h) }
func (h refHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h refHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)        { *h = append(*h, x.(item)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func TestPopOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []int
		want []int // seqs in pop order
	}{
		{"empty", nil, nil},
		{"one", []int{7}, []int{0}},
		{"sorted", []int{1, 2, 3}, []int{0, 1, 2}},
		{"reversed", []int{3, 2, 1}, []int{2, 1, 0}},
		{"ties keep seq order", []int{5, 1, 5, 1, 5}, []int{1, 3, 0, 2, 4}},
		{"all equal", []int{4, 4, 4, 4}, []int{0, 1, 2, 3}},
		{"negative", []int{0, -3, 2, -3}, []int{1, 3, 0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Heap[item]
			for i, k := range tc.keys {
				h.Push(item{key: k, seq: i, bySeq: true})
			}
			if h.Len() != len(tc.keys) {
				t.Fatalf("Len = %d, want %d", h.Len(), len(tc.keys))
			}
			var got []int
			for {
				p, pok := h.Peek()
				v, ok := h.Pop()
				if ok != pok || p != v {
					t.Fatalf("Peek = %v %v, then Pop = %v %v", p, pok, v, ok)
				}
				if !ok {
					break
				}
				got = append(got, v.seq)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("pop order = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSameAsContainerHeap: with ties Before leaves open, pushes and pops
// interleaved give what container/heap gives.
func TestSameAsContainerHeap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    int // distinct keys: few make many ties
		ops     int
		popEach int // pop after every popEach-th push
	}{
		{"many ties", 3, 500, 3},
		{"few ties", 1000, 500, 2},
		{"pushes then pops", 4, 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var h Heap[item]
			var ref refHeap
			check := func() {
				got, _ := h.Pop()
				want := heap.Pop(&ref).(item)
				if got != want {
					t.Fatalf("Pop = %+v, container/heap %+v", got, want)
				}
			}
			for i := range tc.ops {
				v := item{key: rng.IntN(tc.keys), seq: i}
				h.Push(v)
				heap.Push(&ref, v)
				if tc.popEach > 0 && i%tc.popEach == 0 {
					check()
				}
			}
			for ref.Len() > 0 {
				check()
			}
			if h.Len() != 0 {
				t.Errorf("Len = %d after draining, want 0", h.Len())
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	var h Heap[item]
	if v, ok := h.Peek(); ok || v != (item{}) {
		t.Errorf("Peek on empty = %+v %v", v, ok)
	}
	if v, ok := h.Pop(); ok || v != (item{}) {
		t.Errorf("Pop on empty = %+v %v", v, ok)
	}
}

// TestPopClearsSlot: a popped value is no longer referenced by the heap's
// backing array.
func TestPopClearsSlot(t *testing.T) {
	var h Heap[*boxed]
	h.Push(&boxed{key: 1})
	h.Push(&boxed{key: 2})
	h.Pop()
	if tail := h.items[:2][1]; tail != nil {
		t.Errorf("slot after Pop = %+v, want nil", tail)
	}
}

// boxed is ordered by key through a pointer.
type boxed struct{ key int }

func (a *boxed) Before(b *boxed) bool { return a.key < b.key }
