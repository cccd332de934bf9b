package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveMerge merges the lowest-ranked, leftmost pair until none is left:
// the definition mergeAll must agree with.
func naiveMerge(m *bpeModel, syms []int) []int {
	syms = slices.Clone(syms)
	for len(syms) > 1 {
		best, at := merge{}, -1
		for i := 0; i+1 < len(syms); i++ {
			if mg, ok := m.merges[[2]int{syms[i], syms[i+1]}]; ok && (at < 0 || mg.rank < best.rank) {
				best, at = mg, i
			}
		}
		if at < 0 {
			break
		}
		syms[at] = best.id
		syms = slices.Delete(syms, at+1, at+2)
	}
	return syms
}

// TestMergeAllMatchesNaive compares the heap merge with the definition on
// random merge tables over a three-letter alphabet and random words.
func TestMergeAllMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for table := 0; table < 200; table++ {
		tokens := []string{"a", "b", "c"}
		vocab := map[string]int{"a": 0, "b": 1, "c": 2}
		m := &bpeModel{vocab: vocab, merges: map[[2]int]merge{}}
		for rank := 0; rank < 12; rank++ {
			l, r := tokens[rng.IntN(len(tokens))], tokens[rng.IntN(len(tokens))]
			if len(l+r) > 6 {
				continue
			}
			id, ok := vocab[l+r]
			if !ok {
				id = len(tokens)
				vocab[l+r] = id
				tokens = append(tokens, l+r)
			}
			m.merges[[2]int{vocab[l], vocab[r]}] = merge{rank, id}
		}
		for word := 0; word < 20; word++ {
			syms := make([]int, 1+rng.IntN(30))
			for i := range syms {
				syms[i] = rng.IntN(3)
			}
			want := naiveMerge(m, syms)
			if got := m.mergeAll(slices.Clone(syms)); !slices.Equal(got, want) {
				t.Fatalf("table %d word %v: heap merge %v, naive %v", table, syms, got, want)
			}
		}
	}
}
