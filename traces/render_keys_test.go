package traces

import (
	"slices"
	"testing"
)

// TestAppendPromptKeys checks that keys and tail spell PromptTokens: the
// tail is the rendered prompt after the keyed blocks, and two keyed blocks
// (within and across Requests) have equal keys exactly when their rendered
// tokens are equal.
func TestAppendPromptKeys(t *testing.T) {
	const size = 16
	reqs := []*Request{
		{ID: "a", BlockIDs: []uint64{1, 2, 3}, BlockSize: 64},
		{ID: "b", BlockIDs: []uint64{1, 2, 4}, BlockSize: 64, InputTokens: 150},      // cut inside id 4's second block
		{ID: "c", BlockIDs: []uint64{1, 2}, BlockSize: 64, InputTokens: 200},         // padded past its ids
		{ID: "d", BlockIDs: []uint64{1, 2, 3}, BlockSize: 32},                        // id 1's first 32 tokens, then id 2's
		{ID: "e", BlockIDs: []uint64{7, 8}, BlockSize: 24},                           // 16 does not divide 24: nothing keyed
		{ID: "f", BlockIDs: []uint64{1}, BlockSize: 64, InputTokens: 10},             // shorter than one block
		{ID: "g", BlockIDs: []uint64{2, 1}, InputTokens: 600},                        // default 512 per id
		{ID: "h", Prompt: "no ids"},                                                  // no block ids: nothing
		{ID: "i", BlockIDs: []uint64{1, 2, 3}, BlockSize: 64, InputTokens: 64*3 + 5}, // padding of 5
	}
	type block struct {
		key  uint64
		toks []int
	}
	var all []block
	for _, r := range reqs {
		keys, tail := AppendPromptKeys(nil, nil, r, size)
		want := AppendPromptTokens(nil, r)
		if got := len(keys)*size + len(tail); got != len(want) {
			t.Fatalf("%s: %d keys and %d tail tokens, want %d tokens", r.ID, len(keys), len(tail), len(want))
		}
		if !slices.Equal(tail, want[len(keys)*size:]) {
			t.Fatalf("%s: tail differs from the rendered prompt after %d keyed blocks", r.ID, len(keys))
		}
		for i, k := range keys {
			all = append(all, block{k, want[i*size : (i+1)*size]})
		}
		if r.ID == "e" && len(keys) != 0 {
			t.Fatalf("e: %d keys with a block size 16 does not divide", len(keys))
		}
		if r.ID == "a" && len(keys) != 12 {
			t.Fatalf("a: %d keys, want 12", len(keys))
		}
	}
	shared := 0
	for i := range all {
		for j := range i {
			sameKey, sameToks := all[i].key == all[j].key, slices.Equal(all[i].toks, all[j].toks)
			if sameKey != sameToks {
				t.Fatalf("blocks %d and %d: equal keys %v, equal tokens %v", i, j, sameKey, sameToks)
			}
			if sameKey {
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("no two keyed blocks are equal: the cases exercise nothing")
	}
}
