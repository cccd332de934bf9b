package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// hashModel is a plain reference for hashTable: a map and a slice in
// eviction order (least recently added first).
type hashModel struct {
	capacity int
	ttl      time.Duration
	holders  map[uint64][]int32
	last     map[uint64]time.Duration
	order    []uint64
}

func (m *hashModel) expire(now time.Duration) {
	for len(m.order) > 0 && now-m.last[m.order[0]] > m.ttl {
		m.drop(m.order[0])
	}
}

func (m *hashModel) drop(h uint64) {
	m.order = slices.DeleteFunc(m.order, func(x uint64) bool { return x == h })
	delete(m.holders, h)
	delete(m.last, h)
}

func (m *hashModel) add(hashes []uint64, backend int, now time.Duration) {
	for _, h := range hashes {
		if _, ok := m.holders[h]; ok {
			m.order = slices.DeleteFunc(m.order, func(x uint64) bool { return x == h })
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
// same random adds and expiries, with hashes drawn from a small set so that
// evicted hashes come back often, and requires the same holders for every
// hash and the same Len after every step.
func TestHashTableMatchesModel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		capacity int
		keys     uint64
		hot      uint64 // when not 0, 99 % of hashes come from the first hot keys
		ttl      time.Duration
	}{
		{"small", 8, 20, 0, time.Hour},
		{"evicting", 300, 1000, 0, time.Hour},
		{"expiry", 200, 400, 0, 50 * time.Second},
		{"growing", 5000, 6000, 0, time.Hour},
		// Hot keys reuse the same few arena slots hundreds of times
		// while an evicted cold key stays away.
		{"hot", 4, 200, 6, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.capacity)))
			tab := newHashTable(tc.capacity, tc.ttl)
			m := &hashModel{capacity: tc.capacity, ttl: tc.ttl, holders: map[uint64][]int32{}, last: map[uint64]time.Duration{}}
			var hashes []uint64
			for step := range 3000 {
				now := time.Duration(step) * time.Second
				tab.expire(now)
				m.expire(now)
				hashes = hashes[:0]
				for range rng.IntN(12) {
					k := rng.Uint64N(tc.keys)
					if tc.hot > 0 && rng.IntN(100) != 0 {
						k = rng.Uint64N(tc.hot)
					}
					if h := k * 0x9e3779b97f4a7c15; !slices.Contains(hashes, h) {
						hashes = append(hashes, h)
					}
				}
				b := rng.IntN(4)
				tab.add(hashes, b, now)
				m.add(hashes, b, now)
				if tab.Len() != len(m.order) {
					t.Fatalf("step %d: Len %d, want %d", step, tab.Len(), len(m.order))
				}
				for k := range tc.keys {
					h := k * 0x9e3779b97f4a7c15
					got, _ := tab.holders(h, nil)
					if want := m.holders[h]; !slices.Equal(got, want) {
						t.Fatalf("step %d: holders(%#x) = %v, want %v", step, h, got, want)
					}
				}
			}
			if 2*tab.idx.n > len(tab.idx.slots) {
				t.Errorf("index %d of %d slots used", tab.idx.n, len(tab.idx.slots))
			}
		})
	}
}
