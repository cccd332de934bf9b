package traces

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// DefaultImportBlockSize is the tokens per block id of imported request
// logs (16, vLLM's default KV block size on GPUs).
const DefaultImportBlockSize = 16

// ChainedBlockIDs hashes token ids into one id per block of bs tokens,
// each id covering its block and every block before it (xxhash64 of the
// previous id and the block's tokens, as vLLM's prefix cache keys its
// blocks): two prompts share their first k ids exactly when they share
// their first k blocks of tokens. The last block may be partial. The ids
// cannot be turned back into tokens or text.
func ChainedBlockIDs(tokens []int, bs int) []uint64 {
	if bs < 1 {
		bs = DefaultImportBlockSize
	}
	out := make([]uint64, 0, (len(tokens)+bs-1)/bs)
	buf := make([]byte, 0, 8+4*bs)
	var prev uint64
	for i := 0; i < len(tokens); i += bs {
		block := tokens[i:min(i+bs, len(tokens))]
		buf = binary.LittleEndian.AppendUint64(buf[:0], prev)
		for _, t := range block {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(t))
		}
		prev = xxhash.Sum64(buf)
		out = append(out, prev)
	}
	return out
}
