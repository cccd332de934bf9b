package engine

import (
	"testing"
	"time"
)

// seqTo returns the tokens from..to−1.
func seqTo(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

// i32 converts token ids to the engine's int32.
func i32(ts []int) []int32 {
	out := make([]int32, len(ts))
	for i, t := range ts {
		out[i] = int32(t)
	}
	return out
}

// cat joins token lists.
func cat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// slotOp is one place (release < 0) or release of the slot release.
type slotOp struct {
	tokens  []int
	release int // slot to release holding tokens; −1: place tokens
	slot    int // want: the slot placed on
	hit     int // want: tokens reused
}

// TestSlotCachePlacement works llama.cpp's slot choice by hand: the LCP
// share above the threshold first, else the least recently used slot,
// and the host cache restoring a saved prompt.
func TestSlotCachePlacement(t *testing.T) {
	a := seqTo(1, 11)                      // 10 tokens
	b := cat(seqTo(1, 6), seqTo(100, 105)) // shares 5 with a
	c := seqTo(50, 60)                     // shares nothing
	a2 := cat(a, []int{77})                // a plus one token
	tests := []struct {
		name       string
		slots      int
		similarity float64
		host       int
		ops        []slotOp
	}{
		{"lcp-then-lru", 2, 0.1, 0, []slotOp{
			{tokens: a, release: -1, slot: 1, hit: 0}, // all empty: LRU, ties to the highest index
			{tokens: cat(a, []int{11, 12}), release: 1},
			{tokens: b, release: -1, slot: 1, hit: 5}, // 5/10 = 0.5 > 0.1
			{tokens: b, release: 1},
			{tokens: c, release: -1, slot: 0, hit: 0}, // no match: slot 0 never used
		}},
		{"below-threshold-goes-lru", 2, 0.6, 0, []slotOp{
			{tokens: a, release: -1, slot: 1},
			{tokens: a, release: 1},
			{tokens: b, release: -1, slot: 0, hit: 0}, // 0.5 ≤ 0.6: LRU is slot 0
		}},
		{"busy-slot-is-skipped", 2, 0.1, 0, []slotOp{
			{tokens: a, release: -1, slot: 1},
			{tokens: a, release: -1, slot: 0, hit: 0}, // slot 1 busy: no reuse
		}},
		{"no-host-cache-loses-a", 1, 0.1, 0, []slotOp{
			{tokens: a, release: -1, slot: 0},
			{tokens: a, release: 0},
			{tokens: c, release: -1, slot: 0, hit: 0},
			{tokens: c, release: 0},
			{tokens: a2, release: -1, slot: 0, hit: 0},
		}},
		{"host-cache-restores-a", 1, 0.1, 100, []slotOp{
			{tokens: a, release: -1, slot: 0},
			{tokens: a, release: 0},
			{tokens: c, release: -1, slot: 0, hit: 0}, // a saved to host
			{tokens: c, release: 0},
			{tokens: a2, release: -1, slot: 0, hit: 10}, // c saved, a restored
		}},
		{"host-cache-keeps-large-prompts", 1, 0.1, 100, []slotOp{
			{tokens: a, release: -1, slot: 0},
			{tokens: cat(a, seqTo(200, 240)), release: 0}, // 50 tokens held
			{tokens: c, release: -1, slot: 0, hit: 0},     // saved to host
			{tokens: c, release: 0},
			{tokens: a2, release: -1, slot: 0, hit: 0}, // 10 of 50 = 0.2 < 0.25: not restored
		}},
		{"host-cache-too-small", 1, 0.1, 5, []slotOp{
			{tokens: a, release: -1, slot: 0},
			{tokens: a, release: 0},
			{tokens: c, release: -1, slot: 0, hit: 0},
			{tokens: c, release: 0},
			{tokens: a2, release: -1, slot: 0, hit: 0},
		}},
		{"similarity-off-is-lru-only", 2, 0, 0, []slotOp{
			{tokens: a, release: -1, slot: 1},
			{tokens: a, release: 1},
			{tokens: a2, release: -1, slot: 0, hit: 0},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSlotCache(tc.slots, tc.similarity, tc.host)
			for i, op := range tc.ops {
				if op.release >= 0 {
					c.release(op.release, i32(op.tokens), 0)
					continue
				}
				pl := c.place(i32(op.tokens), 0)
				slot, hit := pl.slot, pl.hit
				if slot != op.slot || hit != op.hit {
					t.Fatalf("op %d: place = slot %d hit %d, want slot %d hit %d", i, slot, hit, op.slot, op.hit)
				}
			}
		})
	}
}

// TestSlotCacheSaltAndFull checks that a salt separates prompts and that
// place refuses when every slot is busy.
func TestSlotCacheSaltAndFull(t *testing.T) {
	c := newSlotCache(1, 0.1, 0)
	a := i32(seqTo(1, 11))
	if s := c.place(a, 7).slot; s != 0 {
		t.Fatalf("first place: slot %d", s)
	}
	if s := c.place(a, 7).slot; s != -1 {
		t.Fatalf("place with every slot busy: slot %d, want -1", s)
	}
	c.release(0, a, 7)
	if hit := c.place(a, 8).hit; hit != 0 {
		t.Errorf("other salt: hit %d, want 0", hit)
	}
}

// TestPerSlotEngineHits runs the engine with the per-slot cache: a
// follow-up reuses its slot's exact common prefix (not whole blocks), an
// identical prompt recomputes its last token, and a concurrent request
// on another slot reuses nothing, where the paged cache would hit.
func TestPerSlotEngineHits(t *testing.T) {
	base := prompt(40, 3)
	follow := cat(base[:37], prompt(20, 9))
	tests := []struct {
		name  string
		cache string
		arr   []arrival
		want  map[string]int // cached tokens per request
	}{
		{"follow-up-exact-lcp", CachePerSlot, []arrival{
			{0, Request{ID: "a", Prompt: base, MaxTokens: 2, IgnoreEOS: true}},
			{time.Second, Request{ID: "b", Prompt: follow, MaxTokens: 2, IgnoreEOS: true}},
		}, map[string]int{"a": 0, "b": 37}},
		{"follow-up-paged-whole-blocks", CachePagedPrefix, []arrival{
			{0, Request{ID: "a", Prompt: base, MaxTokens: 2, IgnoreEOS: true}},
			{time.Second, Request{ID: "b", Prompt: follow, MaxTokens: 2, IgnoreEOS: true}},
		}, map[string]int{"a": 0, "b": 32}},
		{"same-prompt-recomputes-last", CachePerSlot, []arrival{
			{0, Request{ID: "a", Prompt: base, MaxTokens: 2, IgnoreEOS: true}},
			{time.Second, Request{ID: "b", Prompt: base, MaxTokens: 2, IgnoreEOS: true}},
		}, map[string]int{"a": 0, "b": 39}},
		{"concurrent-other-slot", CachePerSlot, []arrival{
			{0, Request{ID: "a", Prompt: base, MaxTokens: 50, IgnoreEOS: true}},
			{time.Second, Request{ID: "w", Prompt: prompt(10, 5), MaxTokens: 2, IgnoreEOS: true}},
			{2 * time.Second, Request{ID: "b", Prompt: base, MaxTokens: 2, IgnoreEOS: true}},
		}, map[string]int{"a": 0, "w": 0, "b": 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Latency = LinearLatency()
			cfg.Cache, cfg.SlotSimilarity, cfg.MaxNumSeqs = tc.cache, DefaultSlotSimilarity, 2
			if tc.name == "concurrent-other-slot" {
				// a decodes 50 steps of 1 s: still running when b arrives.
				cfg.Latency.Beta = time.Second
			}
			e := mustNew(t, cfg)
			steps := drive(t, e, tc.arr, 1000)
			for id, want := range tc.want {
				ev, _, ok := find(steps, id, isAdmitted)
				if !ok {
					t.Fatalf("%s never admitted", id)
				}
				if ev.CachedTokens != want {
					t.Errorf("%s: cached %d, want %d", id, ev.CachedTokens, want)
				}
			}
		})
	}
}
