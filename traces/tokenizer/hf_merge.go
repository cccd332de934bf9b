package tokenizer

import (
	"cmp"

	"github.com/tracebench/tracebench/internal/minheap"
)

// mergeAll applies the merges to a word's symbols as tokenizers'
// Word::merge_all does: candidate pairs wait in a min-heap by (rank,
// position of the left symbol); a popped pair still present is merged
// and the pairs it forms with its neighbours are pushed. The result is
// the same as merging the lowest-ranked leftmost pair until none is
// left, in O(n log n) rather than O(n²), which matters when a whole
// prompt is one word (SentencePiece layouts without a pre-tokenizer).
func (m *bpeModel) mergeAll(syms []int) []int {
	n := len(syms)
	if n < 2 {
		return syms
	}
	prev, next := make([]int, n), make([]int, n)
	for i := range syms {
		prev[i], next[i] = i-1, i+1
	}
	next[n-1] = -1
	alive := make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	var q minheap.Heap[pairCand]
	push := func(i int) {
		if i < 0 || next[i] < 0 {
			return
		}
		if mg, ok := m.merges[[2]int{syms[i], syms[next[i]]}]; ok {
			q.Push(pairCand{rank: mg.rank, pos: i, id: mg.id})
		}
	}
	for i := 0; i+1 < n; i++ {
		push(i)
	}
	for q.Len() > 0 {
		c, _ := q.Pop()
		j := next[c.pos]
		if !alive[c.pos] || j < 0 {
			continue
		}
		if mg, ok := m.merges[[2]int{syms[c.pos], syms[j]}]; !ok || mg.id != c.id {
			continue // the pair changed since it was pushed
		}
		syms[c.pos] = c.id
		alive[j] = false
		next[c.pos] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = c.pos
		}
		push(prev[c.pos])
		push(c.pos)
	}
	out := syms[:0]
	for i := 0; i >= 0; i = next[i] {
		out = append(out, syms[i])
	}
	return out
}

// pairCand is a pair that may merge: its rank, the left symbol's
// position and the merged id.
type pairCand struct{ rank, pos, id int }

// Before orders candidates by rank, then position.
func (c pairCand) Before(o pairCand) bool {
	return cmp.Or(cmp.Compare(c.rank, o.rank), cmp.Compare(c.pos, o.pos)) < 0
}
