// Package minheap is a min-heap of values that order themselves. It runs
// on container/heap, so values that neither precede the other come out in
// the same order as from a container/heap of the same pushes and pops;
// orderings that must be deterministic break ties in Before.
package minheap

import "container/heap"

// Ordered is a value that says whether it precedes another.
type Ordered[T any] interface {
	// Before reports whether the value comes strictly before o.
	Before(o T) bool
}

// Heap is a min-heap of T by Before. The zero value is an empty heap.
type Heap[T Ordered[T]] struct {
	items []T
}

// From returns a heap of items, ordered in linear time; the heap owns
// the slice from then on.
func From[T Ordered[T]](items []T) *Heap[T] {
	h := &Heap[T]{items: items}
	heap.Init(adapter[T]{h})
	return h
}

// Len returns the number of values in h.
func (h *Heap[T]) Len() int { return len(h.items) }

// Peek returns the least value without removing it (ok false: h is
// empty).
func (h *Heap[T]) Peek() (v T, ok bool) {
	if len(h.items) == 0 {
		return v, false
	}
	return h.items[0], true
}

// Push adds v.
func (h *Heap[T]) Push(v T) { heap.Push(adapter[T]{h}, v) }

// Pop removes and returns the least value (ok false: h is empty).
func (h *Heap[T]) Pop() (v T, ok bool) {
	if len(h.items) == 0 {
		return v, false
	}
	return heap.Pop(adapter[T]{h}).(T), true
}
