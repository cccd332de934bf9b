package policies

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"

	"github.com/tracebench/tracebench/internal/blockgroup"
)

// blockRef names one block of a prompt in a hashTable: its chained hash
// (k < 0), or the key of the run of blocks it belongs to and its position
// k in the run (0 ≤ k < groupMax).
type blockRef struct {
	key uint64
	k   int8
}

// groupMax is the most blocks one run (one index entry) covers.
const groupMax = blockgroup.Size

// blockRefs appends the references of the view's full blocks of size
// units (a partial tail block is dropped). On a block-id view whose trace
// blocks span a whole number G > 1 of blocks, the blocks inside one trace
// block are runs of up to groupMax: a run's key is chained over the trace
// block ids (and the block size) and each block is its position in its
// run. That is exact: the blocks of a trace block are the tokens its id
// stands for, so two prompts share a run's k-th block exactly when they
// share the ids up to it, which is when their chained hashes agree. Every
// other view gives hashChain's hash per block (computed into the
// caller's scratch *hs).
func (v *promptView) blockRefs(dst []blockRef, hs *[]uint64, size int) []blockRef {
	if v.kind != kindBlocks || size <= 0 || v.blockSize%size != 0 || v.blockSize == size {
		*hs = v.hashChain((*hs)[:0], size, 0)
		for _, h := range *hs {
			dst = append(dst, blockRef{key: h, k: -1})
		}
		return dst
	}
	per := v.blockSize / size
	n := v.units / size
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], v.seed)
	binary.LittleEndian.PutUint64(buf[8:], uint64(v.blockSize))
	chain := xxhash.Sum64(buf[:])
	key := chain
	for i := 0; i < n; i++ {
		k := i % per
		switch {
		case k == 0:
			binary.LittleEndian.PutUint64(buf[:8], chain)
			binary.LittleEndian.PutUint64(buf[8:], v.blocks[i/per])
			chain = xxhash.Sum64(buf[:])
			key = chain
		case k%groupMax == 0:
			binary.LittleEndian.PutUint64(buf[:8], chain)
			binary.LittleEndian.PutUint64(buf[8:], uint64(k/groupMax))
			key = xxhash.Sum64(buf[:]) ^ runSalt
		}
		dst = append(dst, blockRef{key: key, k: int8(k % groupMax)})
	}
	return dst
}

// runSalt separates the keys of a trace block's later runs from chained
// hashes.
const runSalt = 0x5bd1e9955bd1e995
