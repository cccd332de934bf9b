package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// hashModel is a plain reference for hashTable: a map and a slice in
// eviction order (least recently added first), one entry per block.
type hashModel struct {
	capacity int
	ttl      time.Duration
	holders  map[blockRef][]int32
	last     map[blockRef]time.Duration
	order    []blockRef
}

func (m *hashModel) expire(now time.Duration) {
	for len(m.order) > 0 && now-m.last[m.order[0]] > m.ttl {
		m.drop(m.order[0])
	}
}

func (m *hashModel) drop(h blockRef) {
	m.order = slices.DeleteFunc(m.order, func(x blockRef) bool { return x == h })
	delete(m.holders, h)
	delete(m.last, h)
}

func (m *hashModel) add(hashes []blockRef, backend int, now time.Duration) {
	for _, h := range hashes {
		if _, ok := m.holders[h]; ok {
			m.order = slices.DeleteFunc(m.order, func(x blockRef) bool { return x == h })
		} else if len(m.order) >= m.capacity {
			m.drop(m.order[0])
		}
		m.order = append(m.order, h)
		m.last[h] = now
		if !slices.Contains(m.holders[h], int32(backend)) {
			m.holders[h] = append(m.holders[h], int32(backend))
		}
	}
}

// TestHashTableMatchesModel drives hashTable and the reference through the
// same random adds and expiries, with blocks drawn from a small set so that
// evicted blocks come back often, and requires the same holders for every
// block and the same Len after every step. Half the blocks are keyed alone
// and half are positions in runs (grouped), in runs of consecutive
// positions as block-id prompts give them, or scattered.
func TestHashTableMatchesModel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
		keys     uint64
		hot      uint64 // when not 0, 99 % of keys come from the first hot keys
		ttl      time.Duration
	}{
		{"small", 8, 20, 0, time.Hour},
		{"evicting", 300, 1000, 0, time.Hour},
		{"expiry", 200, 400, 0, 50 * time.Second},
		{"growing", 5000, 6000, 0, time.Hour},
		// Hot keys reuse the same few arena slots hundreds of times
		// while an evicted cold key stays away.
		{"hot", 4, 200, 6, time.Hour},
		{"one", 1, 10, 0, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.capacity)))
			tab := newHashTable(tc.capacity, tc.ttl)
			m := &hashModel{capacity: tc.capacity, ttl: tc.ttl, holders: map[blockRef][]int32{}, last: map[blockRef]time.Duration{}}
			var refs []blockRef
			for step := range 3000 {
				now := time.Duration(step) * time.Second
				tab.expire(now)
				m.expire(now)
				refs = randomRefs(rng, refs[:0], tc.keys, tc.hot)
				b := rng.IntN(4)
				tab.add(refs, b, now)
				m.add(refs, b, now)
				if tab.Len() != len(m.order) {
					t.Fatalf("step %d: Len %d, want %d", step, tab.Len(), len(m.order))
				}
				for k := range tc.keys {
					if step%(int(tc.keys)/100+1) != 0 {
						break // every block now and then; the added ones below always
					}
					for pos := int8(-1); pos < groupMax; pos++ {
						r := blockRef{key: refKey(k, pos), k: pos}
						if got, want := tab.holders(r), m.holders[r]; !slices.Equal(got, want) {
							t.Fatalf("step %d: holders(%v) = %v, want %v", step, r, got, want)
						}
					}
				}
				found := tab.resolve(refs, nil)
				for i, r := range refs {
					if got, _ := tab.holdersAt(found[i], nil); !slices.Equal(got, m.holders[r]) {
						t.Fatalf("step %d: resolve(%v) holders %v, want %v", step, r, got, m.holders[r])
					}
				}
			}
			if 2*tab.idx.n > len(tab.idx.slots) {
				t.Errorf("index %d of %d slots used", tab.idx.n, len(tab.idx.slots))
			}
		})
	}
}

// refKey is the index key of key number k: a chained hash when keyed alone
// (pos < 0), a run's key otherwise (the two never collide).
func refKey(k uint64, pos int8) uint64 {
	if pos < 0 {
		return k * 0x9e3779b97f4a7c15
	}
	return (k + 1<<40) * 0x9e3779b97f4a7c15
}

// randomRefs appends up to 12 distinct blocks: alone, a run of
// consecutive positions from 0, or scattered positions.
func randomRefs(rng *rand.Rand, refs []blockRef, keys, hot uint64) []blockRef {
	key := func() uint64 {
		if hot > 0 && rng.IntN(100) != 0 {
			return rng.Uint64N(hot)
		}
		return rng.Uint64N(keys)
	}
	for len(refs) < 12 && rng.IntN(6) != 0 {
		var add []blockRef
		switch k := key(); rng.IntN(3) {
		case 0:
			add = []blockRef{{key: refKey(k, -1), k: -1}}
		case 1:
			for pos := range int8(1 + rng.IntN(groupMax)) {
				add = append(add, blockRef{key: refKey(k, pos), k: pos})
			}
		default:
			pos := int8(rng.IntN(groupMax))
			add = []blockRef{{key: refKey(k, pos), k: pos}}
		}
		for _, r := range add {
			if !slices.Contains(refs, r) {
				refs = append(refs, r)
			}
		}
	}
	return refs
}
