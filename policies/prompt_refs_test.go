package policies

import (
	"math/rand/v2"
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// TestBlockRefsMatchHashChain requires that two blocks of block-id prompts
// get equal references exactly when their chained hashes are equal, over
// prompts that share prefixes of trace blocks and end inside them, for
// block sizes that group (several runs per trace block, one run) and that
// do not.
func TestBlockRefsMatchHashChain(t *testing.T) {
	for _, size := range []int{4, 16, 32, 64, 128, 512, 768} {
		rng := rand.New(rand.NewPCG(7, uint64(size)))
		type block struct {
			ref  blockRef
			hash uint64
		}
		var all []block
		var v promptView
		var scratch []uint64
		for range 40 {
			// Prompts branch off a few shared roots, so that prefixes of
			// every length are shared.
			ids := []uint64{uint64(rng.IntN(2))}
			for len(ids) < 1+rng.IntN(5) {
				ids = append(ids, uint64(len(ids)*10+rng.IntN(2)))
			}
			req := &traces.Request{BlockIDs: ids, BlockSize: 512, InputTokens: 512*(len(ids)-1) + 1 + rng.IntN(512)}
			v.load(req)
			refs := v.blockRefs(nil, &scratch, size)
			hashes := v.hashChain(nil, size, 0)
			if len(refs) != len(hashes) {
				t.Fatalf("size %d: %d refs for %d blocks", size, len(refs), len(hashes))
			}
			for i := range refs {
				all = append(all, block{refs[i], hashes[i]})
				if grouped := 512%size == 0 && size < 512; grouped != (refs[i].k >= 0) {
					t.Fatalf("size %d: block %d is %+v; grouped should be %v", size, i, refs[i], grouped)
				}
			}
		}
		shared := 0
		for i := range all {
			for j := range i {
				if (all[i].ref == all[j].ref) != (all[i].hash == all[j].hash) {
					t.Fatalf("size %d: blocks %d and %d: refs equal %v, hashes equal %v",
						size, i, j, all[i].ref == all[j].ref, all[i].hash == all[j].hash)
				}
				if all[i].hash == all[j].hash {
					shared++
				}
			}
		}
		if shared == 0 {
			t.Fatalf("size %d: no shared blocks; the test shows nothing", size)
		}
	}
}
