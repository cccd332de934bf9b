package engine

import (
	"math/rand/v2"
	"testing"
)

// TestBlockTableTagCollisions checks that hashes sharing a slot tag (and so
// a home slot) never alias: each lookup is verified against the block's
// own hash, and deleting one leaves the others found.
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
		blocks[k].hash = hashes[k]
		tb.put(hashes[k], int32(k))
	}
	for k, h := range hashes {
		if id, ok := tb.get(h); !ok || id != int32(k) {
			t.Fatalf("get(hash %d) = %d, %v; want %d, true", k, id, ok, k)
		}
	}
	if _, ok := tb.get(base ^ (9<<32 | 9)); ok {
		t.Fatal("an absent hash sharing the tag was found")
	}
	tb.del(hashes[3], 3)
	for k, h := range hashes {
		id, ok := tb.get(h)
		if want := k != 3; ok != want || (ok && id != int32(k)) {
			t.Fatalf("after del: get(hash %d) = %d, %v; want found=%v", k, id, ok, want)
		}
	}
}

// TestBlockTableChurn compares the table with a Go map under random
// puts and deletes through several resizes.
func TestBlockTableChurn(t *testing.T) {
	const n = 5000
	blocks := make([]block, n)
	tb := newBlockTable(blocks)
	ref := map[uint64]int32{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 100_000 {
		id := int32(rng.IntN(n))
		b := &blocks[id]
		if b.hashed() {
			tb.del(b.hash, id)
			delete(ref, b.hash)
			b.depth, b.hash = 0, 0
		} else {
			// Few distinct high bits: many tags collide.
			h := rng.Uint64() & 0xff000000ffffffff
			if _, dup := ref[h]; dup {
				continue
			}
			b.depth, b.hash = 1, h
			tb.put(h, id)
			ref[h] = id
		}
		if tb.len() != len(ref) {
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
