package minheap

// adapter is a Heap as container/heap's Interface.
type adapter[T Ordered[T]] struct{ h *Heap[T] }

func (a adapter[T]) Len() int           { return len(a.h.items) }
func (a adapter[T]) Less(i, j int) bool { return a.h.items[i].Before(a.h.items[j]) }
func (a adapter[T]) Swap(i, j int)      { a.h.items[i], a.h.items[j] = a.h.items[j], a.h.items[i] }
func (a adapter[T]) Push(x any)         { a.h.items = append(a.h.items, x.(T)) }

// Pop removes the last value, clearing its slot so that the heap keeps
// nothing it no longer holds alive.
func (a adapter[T]) Pop() any {
	last := len(a.h.items) - 1
	v := a.h.items[last]
	var zero T
	a.h.items[last] = zero
	a.h.items = a.h.items[:last]
	return v
}
