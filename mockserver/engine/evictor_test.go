package engine

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEvictionOrderLRUThenLongestPrefix(t *testing.T) {
	p := newBlockPool(6)
	// Three chains released at different times; ids are allocation order.
	type rel struct {
		depth int
		at    time.Duration
	}
	rels := []rel{
		{1, 10}, {2, 10}, {3, 10}, // chain A, released together at t=10
		{1, 5}, {2, 5}, // chain B, released earlier
		{1, 20}, // chain C, released last
	}
	for i, r := range rels {
		id := p.allocate()
		if int(id) != i {
			t.Fatalf("allocate = %d, want %d", id, i)
		}
		p.register(id, uint64(100+i), r.depth)
	}
	for i, r := range rels {
		p.release(int32(i), r.at)
	}
	// Oldest release first (B), deepest first within a release time.
	want := []int32{4, 3, 2, 1, 0, 5}
	var got []int32
	for range rels {
		got = append(got, p.allocate())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("eviction order (-want +got):\n%s", diff)
	}
	if p.evictions != 6 || p.table.len() != 0 {
		t.Fatalf("evictions %d, table %d: want 6 and empty", p.evictions, p.table.len())
	}
}

func TestHitTakesBlockOutOfEvictor(t *testing.T) {
	p := newBlockPool(3)
	for i := range 3 {
		id := p.allocate()
		p.register(id, uint64(i+1), i+1)
		p.release(id, time.Duration(i))
	}
	ids := p.lookup([]uint64{1, 2, 9})
	if diff := cmp.Diff([]int32{0, 1}, ids); diff != "" {
		t.Fatalf("lookup stops at the first miss (-want +got):\n%s", diff)
	}
	p.acquire(0) // the oldest block gets a user: it must not be evicted
	if got := p.allocate(); got != 1 {
		t.Fatalf("evicted %d, want 1 (0 is in use)", got)
	}
	if p.available() != 1 {
		t.Fatalf("available %d, want 1", p.available())
	}
}

func TestFreeUncachedBlocksGoFirst(t *testing.T) {
	p := newBlockPool(2)
	a := p.allocate()
	p.register(a, 7, 1)
	p.release(a, 0)
	b := p.allocate() // an uncached free block exists: no eviction
	if b == a || p.evictions != 0 {
		t.Fatalf("allocated %d (cached %d), evictions %d", b, a, p.evictions)
	}
}
