package policies

import (
	"math/rand/v2"
	"testing"
)

// TestHitTableMatchesMap drives the open-addressing table and a Go map
// with the same random puts and deletes (keys from a small range, so probe
// runs collide and backward shifts happen, and enough of them to grow the
// table several times) and compares every key after each step.
func TestHitTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var tab hitTable
	ref := map[uint64]int32{}
	keys := make([]uint64, 6000)
	for i := range keys {
		keys[i] = rng.Uint64() &^ 0xffff // equal low bits: homes still spread by Fibonacci hashing
	}
	for step := 0; step < 40000; step++ {
		k := keys[rng.IntN(len(keys))]
		if _, ok := ref[k]; ok && rng.IntN(2) == 0 {
			tab.del(k)
			delete(ref, k)
		} else if !ok {
			tab.put(k, int32(step))
			ref[k] = int32(step)
		}
		if step%997 != 0 {
			continue
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: table holds %d, map %d", step, tab.n, len(ref))
		}
		for _, k := range keys {
			got, ok := tab.get(k)
			want, wok := ref[k]
			if ok != wok || got != want {
				t.Fatalf("step %d: get(%x) = %d, %v; map has %d, %v", step, k, got, ok, want, wok)
			}
		}
	}
	var empty hitTable
	if _, ok := empty.get(1); ok {
		t.Error("empty table found a key")
	}
	empty.del(1) // no panic on an empty table
}
