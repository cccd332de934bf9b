package engine

// seqArrays are the arrays of a finished request kept for the next one,
// so a long run allocates per request only while its lengths grow.
type seqArrays struct {
	tokens []int32
	hashes []uint64
	blocks []int32
}

// maxSpareSeqs is how many finished requests' arrays an engine keeps.
const maxSpareSeqs = 16

// arrays returns empty arrays with room for tokens, hashes and blocks
// entries: a spare set when one is large enough, else new ones.
func (e *Engine) arrays(tokens, hashes, blocks int) seqArrays {
	for i, a := range e.spare {
		if cap(a.tokens) >= tokens && cap(a.hashes) >= hashes && cap(a.blocks) >= blocks {
			last := len(e.spare) - 1
			e.spare[i] = e.spare[last]
			e.spare[last] = seqArrays{}
			e.spare = e.spare[:last]
			return a
		}
	}
	return seqArrays{tokens: make([]int32, 0, tokens), hashes: make([]uint64, 0, hashes), blocks: make([]int32, 0, blocks)}
}

// recycle keeps the arrays of s, which has finished and is referenced no
// more. Requests under the per-slot cache keep theirs (the slot's saved
// prefix may share them).
func (e *Engine) recycle(s *seq) {
	if e.slots != nil {
		return
	}
	a := seqArrays{tokens: s.tokens[:0], hashes: s.hashes[:0], blocks: s.blocks[:0]}
	s.tokens, s.hashes, s.blocks = nil, nil, nil
	if len(e.spare) < maxSpareSeqs {
		e.spare = append(e.spare, a)
		return
	}
	// Keep the larger arrays: s's replace the smallest spare set if larger.
	small := 0
	for i := range e.spare {
		if e.spare[i].size() < e.spare[small].size() {
			small = i
		}
	}
	if a.size() > e.spare[small].size() {
		e.spare[small] = a
	}
}

// size is the arrays' capacity in bytes.
func (a seqArrays) size() int { return 4*cap(a.tokens) + 8*cap(a.hashes) + 4*cap(a.blocks) }
