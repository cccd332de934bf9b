package kvevents

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// SaltHash is the parent hash of a chain's first block for a cache salt
// (vLLM's cache_salt, or a LoRA adapter's name as the mock engine uses
// it): 0 without salt, else the xxhash64 of the salt.
func SaltHash(salt string) uint64 {
	if salt == "" {
		return 0
	}
	return xxhash.Sum64String(salt)
}

// ChainHashes appends to dst the hashes of the full blocks of tokens as
// the mock engine keys its prefix cache: block i's hash is the xxhash64 of
// its parent's hash (8 bytes little endian; parent of block 0 = parent)
// followed by its blockSize token ids (4 bytes little endian each). A
// partial last block has no hash.
func ChainHashes(dst []uint64, tokens []int, blockSize int, parent uint64) []uint64 {
	if blockSize <= 0 {
		return dst
	}
	var buf [8 + 4*64]byte
	var d xxhash.Digest
	for i := 0; (i+1)*blockSize <= len(tokens); i++ {
		d.Reset()
		binary.LittleEndian.PutUint64(buf[:8], parent)
		n := 8
		for _, t := range tokens[i*blockSize : (i+1)*blockSize] {
			if n == len(buf) {
				_, _ = d.Write(buf[:n])
				n = 0
			}
			binary.LittleEndian.PutUint32(buf[n:], uint32(t))
			n += 4
		}
		_, _ = d.Write(buf[:n])
		parent = d.Sum64()
		dst = append(dst, parent)
	}
	return dst
}
