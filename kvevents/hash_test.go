package kvevents

import "testing"

func TestChainHashes(t *testing.T) {
	toks := make([]int, 200)
	for i := range toks {
		toks[i] = i * 7
	}
	a := ChainHashes(nil, toks, 16, 0)
	if len(a) != 12 {
		t.Fatalf("%d hashes, want 12 full blocks", len(a))
	}
	b := ChainHashes(nil, toks[:100], 16, 0)
	for i := range b {
		if a[i] != b[i] {
			t.Fatalf("hash %d depends on later tokens", i)
		}
	}
	if c := ChainHashes(nil, toks, 16, SaltHash("x")); c[0] == a[0] {
		t.Error("salt does not change the chain")
	}
	toks[20]++
	if d := ChainHashes(nil, toks, 16, 0); d[0] != a[0] || d[1] == a[1] || d[2] == a[2] {
		t.Error("a changed token must change its block and every later one only")
	}
	if len(ChainHashes(nil, toks, 100, 0)) != 2 || len(ChainHashes(nil, toks, 0, 0)) != 0 {
		t.Error("block counts wrong for large or zero block size")
	}
}
