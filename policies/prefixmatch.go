package policies

import "slices"

// prefixMatch is how many leading blocks of a prompt one Backend holds in
// a Router's approximate cache view.
type prefixMatch struct {
	// Index is the Backend.Index; Pos its position in State.Backends.
	Index, Pos int32
	// Blocks is the number of leading blocks matched.
	Blocks int32
}

// holdersFunc appends to buf the Backend indexes that hold block hash h.
type holdersFunc func(h uint64, buf []int32) []int32

// matchLeading returns, for every Backend of set that holds hashes[0], the
// number of leading hashes it holds without a gap (hash i counts only when
// hashes 0..i-1 do). It stops at the first hash no remaining Backend holds,
// so its cost is proportional to the longest match, not to the prompt.
// out and hbuf are reused buffers; the updated ones are returned.
func matchLeading(hashes []uint64, set *backendSet, holders holdersFunc,
	hbuf []int32, out []prefixMatch) ([]prefixMatch, []int32) {
	out = out[:0]
	alive := 0 // out[:alive] still match; out[alive:] stopped earlier
	for i, h := range hashes {
		hbuf = holders(h, hbuf[:0])
		if i == 0 {
			for _, idx := range hbuf {
				if pos, ok := set.lookup(int(idx)); ok {
					out = append(out, prefixMatch{Index: idx, Pos: int32(pos), Blocks: 1})
				}
			}
			alive = len(out)
		} else {
			j := 0
			for k := 0; k < alive; k++ {
				if slices.Contains(hbuf, out[k].Index) {
					out[k].Blocks = int32(i + 1)
					out[j], out[k] = out[k], out[j]
					j++
				}
			}
			alive = j
		}
		if alive == 0 {
			break
		}
	}
	return out, hbuf
}

// blocksOf returns the matched blocks of the Backend with Index idx in ms.
func blocksOf(ms []prefixMatch, idx int) int {
	for _, m := range ms {
		if int(m.Index) == idx {
			return int(m.Blocks)
		}
	}
	return 0
}
