package policies

// prefixMatch is how many leading blocks of a prompt one Backend holds in
// a Router's approximate cache view.
type prefixMatch struct {
	// Index is the Backend.Index; Pos its position in State.Backends.
	Index, Pos int32
	// Blocks is the number of leading blocks matched.
	Blocks int32
}

// holdersFunc returns the Backend indexes that hold block h (a block hash,
// or whatever names a block in the index it reads, such as hashTable's
// resolved slots): either buf with them appended, or (owned true) a slice of the index's own that
// the caller only reads before the next call.
type holdersFunc func(h uint64, buf []int32) (hs []int32, owned bool)

// leadingMatcher finds, for every Backend that holds hashes[0], the number
// of leading hashes it holds without a gap (hash i counts only when hashes
// 0..i-1 do). It stops at the first hash no remaining Backend holds, so its
// cost is proportional to the longest match times the holders per hash,
// and it allocates nothing once its buffers have grown.
type leadingMatcher struct {
	marks []uint32 // by Backend.Index: stamp of the last hash holding it
	stamp uint32
	hbuf  []int32
	out   []prefixMatch
}

// match returns the matches of the Backends in set (reused storage).
func (m *leadingMatcher) match(hashes []uint64, set *backendSet, holders holdersFunc) []prefixMatch {
	m.out = m.out[:0]
	alive := 0 // m.out[:alive] still match; m.out[alive:] stopped earlier
	for i, h := range hashes {
		hs, owned := holders(h, m.hbuf[:0])
		if !owned {
			m.hbuf = hs // keep the grown buffer
		}
		if i == 0 {
			for _, idx := range hs {
				if pos, ok := set.lookup(int(idx)); ok {
					m.out = append(m.out, prefixMatch{Index: idx, Pos: int32(pos), Blocks: 1})
				}
			}
			alive = len(m.out)
		} else {
			m.mark(hs)
			j := 0
			for k := 0; k < alive; k++ {
				if idx := m.out[k].Index; int(idx) < len(m.marks) && m.marks[idx] == m.stamp {
					m.out[k].Blocks = int32(i + 1)
					m.out[j], m.out[k] = m.out[k], m.out[j]
					j++
				}
			}
			alive = j
		}
		if alive == 0 {
			break
		}
	}
	return m.out
}

// mark stamps the given Backend indexes with a new stamp.
func (m *leadingMatcher) mark(idxs []int32) {
	nextStamp(&m.stamp, m.marks)
	for _, idx := range idxs {
		for int(idx) >= len(m.marks) {
			m.marks = append(m.marks, 0)
		}
		m.marks[idx] = m.stamp
	}
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
