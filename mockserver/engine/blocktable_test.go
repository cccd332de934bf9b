package engine

import (
	"math/rand/v2"
	"testing"
)

// registerForTest inserts block id under hash in tb and marks its record,
// as the pool does; it reports whether hash was absent.
func (tb *blockTable) registerForTest(id int32, hash uint64) bool {
	if !tb.insert(hash, id) {
		return false
	}
	tb.blocks[id].hash, tb.blocks[id].depth = hash, 1
	return true
}

// TestBlockTableTagCollisions checks that hashes sharing a slot tag (and so
// a home slot) never alias: each lookup is verified against the block's
// own record, and evicting one leaves the others found.
func TestBlockTableTagCollisions(t *testing.T) {
	blocks := make([]block, 64)
	tb := newBlockTable(blocks)
	const base = 0x0123456789abcdef
	// h ^ (k<<32 | k) keeps tagOf(h): these hashes all share one tag.
	hashes := make([]uint64, 8)
	for k := range hashes {
		hashes[k] = base ^ (uint64(k)<<32 | uint64(k))
		if tagOf(hashes[k]) != tagOf(base) {
			t.Fatalf("hash %d: tag %x, want %x", k, tagOf(hashes[k]), tagOf(base))
		}
		tb.registerForTest(int32(k), hashes[k])
	}
	for k, h := range hashes {
		if id, ok := tb.get(h); !ok || id != int32(k) {
			t.Fatalf("get(hash %d) = %d, %v; want %d, true", k, id, ok, k)
		}
	}
	if _, ok := tb.get(base ^ (9<<32 | 9)); ok {
		t.Fatal("an absent hash sharing the tag was found")
	}
	blocks[3].hash, blocks[3].depth = 0, 0 // evicted: its entry is stale
	for k, h := range hashes {
		id, ok := tb.get(h)
		if want := k != 3; ok != want || (ok && id != int32(k)) {
			t.Fatalf("after eviction: get(hash %d) = %d, %v; want found=%v", k, id, ok, want)
		}
	}
	// The evicted hash cached again in another block is found there.
	tb.registerForTest(40, hashes[3])
	if id, ok := tb.get(hashes[3]); !ok || id != 40 {
		t.Fatalf("re-registered hash: get = %d, %v; want 40, true", id, ok)
	}
	if n := tb.len(); n != len(hashes) {
		t.Fatalf("len %d, want %d", n, len(hashes))
	}
}

// TestBlockTableChurn compares the table with a Go map under random
// registrations and evictions, through many rebuilds, with hashes that
// often share tags and hashes cached again after eviction.
func TestBlockTableChurn(t *testing.T) {
	const n = 5000
	blocks := make([]block, n)
	tb := newBlockTable(blocks)
	ref := map[uint64]int32{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 200_000 {
		id := int32(rng.IntN(n))
		b := &blocks[id]
		if b.hashed() {
			delete(ref, b.hash)
			b.hash, b.depth = 0, 0
		} else {
			// Few distinct hashes with few distinct high bits: tags
			// collide and evicted hashes come back.
			h := uint64(rng.IntN(3*n)) | uint64(rng.IntN(4))<<56
			if step%2 == 0 {
				if _, dup := tb.get(h); dup != hasKey(ref, h) {
					t.Fatalf("step %d: get(%x) found %v, map %v", step, h, dup, hasKey(ref, h))
				}
			}
			if stored := tb.registerForTest(id, h); stored == hasKey(ref, h) {
				t.Fatalf("step %d: insert(%x) stored %v, map has it %v", step, h, stored, hasKey(ref, h))
			} else if stored {
				ref[h] = id
			}
		}
		if step%10_000 == 0 && tb.len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", step, tb.len(), len(ref))
		}
	}
	for h, want := range ref {
		if id, ok := tb.get(h); !ok || id != want {
			t.Fatalf("get(%x) = %d, %v; want %d", h, id, ok, want)
		}
	}
	for range 1000 {
		h := rng.Uint64()
		if _, in := ref[h]; in {
			continue
		}
		if _, ok := tb.get(h); ok {
			t.Fatalf("absent hash %x found", h)
		}
	}
}

func hasKey(m map[uint64]int32, k uint64) bool {
	_, ok := m[k]
	return ok
}
