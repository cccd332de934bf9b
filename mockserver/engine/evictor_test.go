package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEvictionOrder works one history by hand for every policy. Blocks
// 0–7 are allocated in id order and registered (depth = position in the
// chain); requests release their chains tail first, as the engine does:
//
//	chain B  0 (depth 1), 1 (2)          released at t=5
//	         a request hits 0 and 1 at t=6 and releases them at t=7 (2 uses each)
//	chain A  2 (1), 3 (2), 4 (3)         released at t=10
//	chain D  6 (1), 7 (2)                released at t=10, after A
//	chain C  5 (1)                       released at t=20
func TestEvictionOrder(t *testing.T) {
	for _, tc := range []struct {
		policy string
		want   []int32
	}{
		// Release order: B again at 7, then A, D, C.
		{EvictLRU, []int32{1, 0, 4, 3, 2, 7, 6, 5}},
		// By release time, then deepest first across A and D at t=10,
		// then lower id (3 before 7, 2 before 6).
		{EvictLRULongest, []int32{1, 0, 4, 3, 7, 2, 6, 5}},
		// Blocks used once first (in lru-longest order), B's last.
		{EvictLFU, []int32{4, 3, 7, 2, 6, 5, 1, 0}},
		// The empty policy is lru-longest.
		{"", []int32{1, 0, 4, 3, 7, 2, 6, 5}},
	} {
		t.Run(fmt.Sprintf("%q", tc.policy), func(t *testing.T) {
			p := newBlockPool(8, tc.policy)
			depth := []int{1, 2, 1, 2, 3, 1, 1, 2}
			for i, d := range depth {
				if id := p.allocate(); int(id) != i {
					t.Fatalf("allocate = %d, want %d", id, i)
				}
				p.register(int32(i), uint64(100+i), d)
			}
			release := func(at time.Duration, ids ...int32) {
				for _, id := range ids {
					p.release(id, at)
				}
			}
			release(5, 1, 0)
			p.acquire(0)
			p.acquire(1)
			release(7, 1, 0)
			release(10, 4, 3, 2)
			release(10, 7, 6)
			release(20, 5)
			var got []int32
			for range depth {
				got = append(got, p.allocate())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("eviction order (-want +got):\n%s", diff)
			}
			if p.evictions != 8 || p.table.len() != 0 || p.evict.Len() != 0 {
				t.Fatalf("evictions %d, table %d, evictor %d: want 8, empty, empty", p.evictions, p.table.len(), p.evict.Len())
			}
		})
	}
}

func TestHitTakesBlockOutOfEvictor(t *testing.T) {
	for _, policy := range EvictionPolicies() {
		t.Run(policy, func(t *testing.T) {
			p := newBlockPool(3, policy)
			for i := range 3 {
				id := p.allocate()
				p.register(id, uint64(i+1), 1)
				p.release(id, time.Duration(i))
			}
			ids := p.lookup(nil, []uint64{1, 2, 9}, keyRuns{})
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
		})
	}
}

func TestFreeUncachedBlocksGoFirst(t *testing.T) {
	for _, policy := range EvictionPolicies() {
		t.Run(policy, func(t *testing.T) {
			p := newBlockPool(2, policy)
			a := p.allocate()
			p.register(a, 7, 1)
			p.release(a, 0)
			b := p.allocate() // an uncached free block exists: no eviction
			if b == a || p.evictions != 0 {
				t.Fatalf("allocated %d (cached %d), evictions %d", b, a, p.evictions)
			}
		})
	}
}

func TestEvictionPolicyValidation(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{{"", EvictLRULongest, true}, {"lru", EvictLRU, true}, {"lfu", EvictLFU, true}, {"lru-longest", EvictLRULongest, true},
		{"LRU", "", false}, {"fifo", "", false}} {
		got, err := evictionPolicy(tc.name)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("evictionPolicy(%q) = %q, %v; want %q, ok %v", tc.name, got, err, tc.want, tc.ok)
		}
		cfg := DefaultConfig()
		cfg.Eviction = tc.name
		if err := cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate with Eviction %q: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
