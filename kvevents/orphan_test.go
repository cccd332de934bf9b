package kvevents

import (
	"testing"
)

// TestIndexOrphans loses a stream's first batch (a chain's first two
// blocks) and applies the rest: the child naming a lost block as its
// parent is an orphan, not malformed input; its blocks are indexed and
// its own child attaches to them (no second orphan), removals pair up,
// no prompt matches the orphan chain, and a chain started afterwards is
// matched in full. Token ids that do not fill their blocks stay
// malformed.
func TestIndexOrphans(t *testing.T) {
	toks := make([]int, 96)
	for i := range toks {
		toks[i] = 3*i + 1
	}
	other := make([]int, 32)
	for i := range other {
		other[i] = 5000 + i
	}
	for _, tt := range []struct {
		name   string
		mode   HashMode
		hashes func([]int, uint64) []uint64 // the engine's hashes of a chain
	}{
		{"tokens", HashesTokens, func(t []int, p uint64) []uint64 { // opaque, as vLLM's
			out := ChainHashes(nil, t, 16, p)
			for i := range out {
				out[i] ^= 0x5a5a
			}
			return out
		}},
		{"engine", HashesEngine, func(t []int, p uint64) []uint64 { return ChainHashes(nil, t, 16, p) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x, _ := NewIndex(1, 16, 0)
			x.SetHashes(tt.mode)
			eng := tt.hashes(toks, 0)
			ev := func(from, to int) Event {
				e := Event{Kind: Stored, Hashes: eng[from:to], Tokens: toks[16*from : 16*to], BlockSize: 16}
				if from > 0 {
					e.Parent, e.HasParent = eng[from-1], true
				}
				return e
			}
			// Blocks 0-1 were in the lost first batch.
			x.Apply(0, batch(ev(2, 4)))
			x.Apply(0, batch(ev(4, 6)))
			st := x.Stats()[0]
			if st.Orphans != 1 || st.Malformed != 0 || st.Blocks != 4 {
				t.Fatalf("orphans %d malformed %d blocks %d, want 1 0 4", st.Orphans, st.Malformed, st.Blocks)
			}
			own := ChainHashes(nil, toks, 16, 0)
			if got := x.Match(own, nil)[0]; got != 0 {
				t.Errorf("a prompt matched %d blocks of a chain whose first blocks are unknown", got)
			}
			x.Apply(0, batch(Event{Kind: Removed, Hashes: eng[4:6]}))
			if st := x.Stats()[0]; st.Blocks != 2 {
				t.Errorf("%d blocks after removing the orphan's child, want 2", st.Blocks)
			}
			fresh := tt.hashes(other, 0)
			x.Apply(0, batch(Event{Kind: Stored, Hashes: fresh, Tokens: other, BlockSize: 16}))
			if got := x.Match(ChainHashes(nil, other, 16, 0), nil)[0]; got != 2 {
				t.Errorf("a chain stored after the loss matched %d of 2 blocks", got)
			}
			x.Apply(0, batch(Event{Kind: Stored, Hashes: []uint64{9}, Parent: fresh[1], HasParent: true,
				Tokens: other[:8], BlockSize: 16}))
			if st := x.Stats()[0]; tt.mode == HashesTokens && st.Malformed != 1 {
				t.Errorf("short token ids: malformed %d, want 1", st.Malformed)
			}
		})
	}
}
