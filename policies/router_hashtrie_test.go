package policies

import (
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// TestHashTrieSteps works the production stack's walk by hand with
// 4-character chunks and prompts of one token per character: chunks X =
// "xxxx", Y = "yyyy", Z = "zzzz", W = "wwww".
func TestHashTrieSteps(t *testing.T) {
	bs := fleet(0, 0, 0)
	p := Params{"chunk_chars": traces.ParamInt(4)}
	req := func(id, text string) *traces.Request { return textReq(id, text, len(text)) }
	r := mustRouter(t, "hashtrie", p, 1)
	runSteps(t, r, []step{
		// Build the trie: X Y on b0, X Z on b1. With only b1 available, X
		// (held by b0 alone) would empty the set, so b matches nothing.
		{req: req("a", "xxxxyyyy"), st: only(bs, 0, 0), want: 0, reason: "random", hit: 0},
		{req: req("b", "xxxxzzzz"), st: only(bs, 1, 0), want: 1, reason: "random", hit: 0},
		// X → {b0, b1}; X Y → {b0}; X Y W is no node: stop, b0, 8 tokens.
		{req: req("c", "xxxxyyyywwww"), st: State{Backends: bs}, want: 0, reason: "prefix", hit: 8},
		// X Z → {b1}, the whole prompt matched.
		{req: req("d", "xxxxzzzz"), st: State{Backends: bs}, want: 1, reason: "prefix", hit: 8},
		// Only b1 available: X → {b1}; X Y is held by b0 alone, so the
		// walk stops before the set empties: b1 with one chunk.
		{req: req("e", "xxxxyyyy"), st: only(bs, 1, 0), want: 1, reason: "prefix", hit: 4},
		// Now b1 holds X Y too: X Y W matches 8 on b0 and b1 (c put X Y W
		// on b0, so b0 matches all 12).
		{req: req("f", "xxxxyyyywwww"), st: State{Backends: bs}, want: 0, reason: "prefix", hit: 12},
		// Chunks are chained: W as a first chunk is no node (W was only
		// seen after X Y), and the partial tail "x" is not hashed.
		{req: req("g", "wwwwx"), st: only(bs, 2, 0), want: 2, reason: "random", hit: 0},
	})
}

// TestHashTrieSpreadsTies: among backends matching equally the pick is
// uniform; one that does not hold the prefix is never picked.
func TestHashTrieSpreadsTies(t *testing.T) {
	bs := fleet(0, 0, 0)
	r := mustRouter(t, "hashtrie", Params{"chunk_chars": traces.ParamInt(4)}, 3)
	mustPick(t, r, textReq("a", "xxxxyyyy", 8), only(bs, 0, 0))
	mustPick(t, r, textReq("b", "xxxxyyyy", 8), only(bs, 1, 0))
	counts := map[int]int{}
	for i := range 200 {
		ch := mustPick(t, r, textReq("q", "xxxxyyyy", 8), State{Backends: bs})
		if ch.PredictedHitTokens != 8 || ch.Reason != "prefix" {
			t.Fatalf("pick %d: %+v, want a full 8-token prefix match", i, ch)
		}
		counts[ch.Backend]++
	}
	if counts[2] != 0 || counts[0] < 70 || counts[1] < 70 {
		t.Fatalf("picks by backend %v: want b0 and b1 about 100 each, b2 none", counts)
	}
}

// TestHashTrieLoRAAndBlocks: the same text under another adapter is
// another prefix; token-exact block prompts match block by block
// (chunk_chars 2048 = 512 tokens = one Mooncake block).
func TestHashTrieLoRAAndBlocks(t *testing.T) {
	bs := fleet(0, 0)
	r := mustRouter(t, "hashtrie", Params{"chunk_chars": traces.ParamInt(4)}, 1)
	a := textReq("a", "xxxxyyyy", 8)
	mustPick(t, r, a, only(bs, 0, 0))
	b := textReq("b", "xxxxyyyy", 8)
	b.LoRA = "sql"
	if ch := mustPick(t, r, b, only(bs, 1, 0)); ch.PredictedHitTokens != 0 {
		t.Fatalf("adapter sql matched adapter-less prefix: %+v", ch)
	}
	r = mustRouter(t, "hashtrie", Params{"chunk_chars": traces.ParamInt(2048)}, 1)
	mustPick(t, r, blockReq("m1", 512, 1400, 7, 8, 9), only(bs, 1, 0))
	ch := mustPick(t, r, blockReq("m2", 512, 1200, 7, 8, 5), State{Backends: bs})
	if ch.Backend != 1 || ch.PredictedHitTokens != 1024 {
		t.Fatalf("block prompt: %+v, want backend 1 with 2 blocks = 1024 tokens", ch)
	}
}
