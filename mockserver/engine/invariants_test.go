package engine

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// checkPool verifies the block pool's bookkeeping against the live
// requests: every block is held (ref = number of holders), idle and
// cached (in the evictor, in the table), or free and uncached; the
// evictor list is in eviction order; the table maps each hash to the
// block registered under it.
func checkPool(t *testing.T, e *Engine) {
	t.Helper()
	p := e.pool
	holders := make([]int32, len(p.blocks))
	for _, s := range e.live {
		for _, id := range s.blocks {
			holders[id]++
		}
	}
	inFree := make([]bool, len(p.blocks))
	nFree := 0
	for id := p.free; id >= 0; id = p.blocks[id].next {
		if nFree++; nFree > len(p.blocks) {
			t.Fatal("free list has a cycle")
		}
		if inFree[id] {
			t.Fatalf("block %d twice in the free list", id)
		}
		inFree[id] = true
	}
	if nFree != p.freeLen {
		t.Fatalf("free list holds %d blocks, counted %d", nFree, p.freeLen)
	}
	inEvict := evictorMembers(t, p)
	hashed := 0
	for id := range p.blocks {
		b := &p.blocks[id]
		if b.ref != holders[id] {
			t.Fatalf("block %d: ref %d, held by %d requests", id, b.ref, holders[id])
		}
		switch {
		case b.ref > 0 && (inFree[id] || inEvict[id]):
			t.Fatalf("block %d: in use and free (free %v, evictor %v)", id, inFree[id], inEvict[id])
		case b.ref == 0 && b.hashed() && !inEvict[id]:
			t.Fatalf("block %d: cached without users but not in the evictor", id)
		case b.ref == 0 && !b.hashed() && !inFree[id]:
			t.Fatalf("block %d: unused and uncached but not free", id)
		case inEvict[id] && !b.hashed():
			t.Fatalf("block %d: in the evictor without a hash", id)
		}
		if b.hashed() {
			hashed++
			if b.group != 0 {
				g, k := (b.group-1)/groupSize, (b.group-1)%groupSize
				if got := p.groups.arena.Member(g, int(k)); got != int32(id) {
					t.Fatalf("block %d: its group %d holds block %d at position %d", id, g, got, k)
				}
			} else if got, ok := p.table.get(b.hash); !ok || got != int32(id) {
				t.Fatalf("block %d: table maps its hash to %d (%v)", id, got, ok)
			}
		}
	}
	checkGroups(t, p)
	if n := p.table.len() + p.groups.len(); hashed != n {
		t.Fatalf("tables hold %d hashes (%d in groups), %d blocks are hashed", n, p.groups.len(), hashed)
	}
}

// checkGroups checks that every indexed group is found under its key,
// counts its cached blocks, and that each of them names it.
func checkGroups(t *testing.T, p *blockPool) {
	t.Helper()
	a := &p.groups.arena
	for key, g := range p.groups.byKey {
		if a.Key(g) != key {
			t.Fatalf("group %d indexed under %x records key %x", g, key, a.Key(g))
		}
		n := int32(0)
		for k := range groupSize {
			m := a.Member(g, k)
			if m < 0 {
				continue
			}
			n++
			if b := &p.blocks[m]; b.group != g*groupSize+int32(k)+1 || !b.hashed() {
				t.Fatalf("group %d position %d: block %d names group ref %d (depth %d)", g, k, m, b.group, b.depth)
			}
		}
		if n == 0 || n != a.Len(g) {
			t.Fatalf("group %d: %d blocks cached, Len %d", g, n, a.Len(g))
		}
	}
}

// evictorMembers checks the evictor's structure and order (a linked list
// in release order, or a heap with each block's slot) and returns which
// blocks it holds.
func evictorMembers(t *testing.T, p *blockPool) []bool {
	t.Helper()
	in := make([]bool, len(p.blocks))
	n := 0
	switch e := p.evict.(type) {
	case *lruEvictor:
		for id, prev := e.head, int32(-1); id >= 0; prev, id = id, p.blocks[id].next {
			if p.blocks[id].prev != prev {
				t.Fatalf("evictor: block %d prev %d, want %d", id, p.blocks[id].prev, prev)
			}
			if prev >= 0 && p.lastUsed[prev] > p.lastUsed[id] {
				t.Fatalf("evictor: block %d released after %d listed first", prev, id)
			}
			in[id] = true
			n++
		}
	case *heapEvictor:
		for i, id := range e.heap {
			if int(e.slot[id]) != i {
				t.Fatalf("evictor: block %d in slot %d records slot %d", id, i, e.slot[id])
			}
			if i > 0 && e.before(i, (i-1)/2) {
				t.Fatalf("evictor: block %d goes before its heap parent", id)
			}
			in[id] = true
			n++
		}
	default:
		t.Fatalf("evictor of type %T", p.evict)
	}
	if n != p.evict.Len() {
		t.Fatalf("evictor: holds %d, Len %d", n, p.evict.Len())
	}
	return in
}

// runKeys returns the keys of 1–3 runs of keyRun blocks (the last maybe
// cut short), from a few shared run ids: a key is a bijection of (run id,
// offset), so a run's later keys follow from its first.
func runKeys(rng *rand.Rand, keyRun int) []uint64 {
	var keys []uint64
	n := 1 + rng.IntN(3)
	for r := range n {
		id := uint64(rng.IntN(4))
		if r > 0 {
			id = uint64(r)<<8 | uint64(rng.IntN(3))
		}
		for off := range keyRun {
			if r == n-1 && off > 0 && rng.IntN(keyRun) == 0 {
				break
			}
			keys = append(keys, mix64(id<<16|uint64(off)))
		}
	}
	return keys
}

// TestPoolInvariantsUnderChurn drives engines with random arrivals that
// share prefixes, random aborts and a KV cache small enough to preempt
// and evict, checking the pool after every step.
func TestPoolInvariantsUnderChurn(t *testing.T) {
	type churn struct {
		name, batching, eviction string
		blocks                   int
		keyRun                   int // when > 0, half the prompts are keyed in runs of keyRun
	}
	var cases []churn
	for _, ev := range EvictionPolicies() {
		cases = append(cases, churn{"continuous, 48 blocks, " + ev, Continuous, ev, 48, 0},
			churn{"continuous, 200 blocks, " + ev, Continuous, ev, 200, 0}, churn{"static, 64 blocks, " + ev, Static, ev, 64, 0})
	}
	cases = append(cases, churn{"keyed runs of 3, 48 blocks", Continuous, EvictLRU, 48, 3},
		churn{"keyed runs of 20, 200 blocks", Continuous, EvictLRU, 200, 20},
		churn{"keyed runs of 20, 120 blocks, lru-longest", Continuous, EvictLRULongest, 120, 20})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NumGPUBlocks, cfg.MaxNumSeqs, cfg.MaxNumBatchedTokens, cfg.Batching = tc.blocks, 12, 256, tc.batching
			cfg.Eviction = tc.eviction
			cfg.EOSProbability = 0.02
			e := mustNew(t, cfg)
			rng := rand.New(rand.NewPCG(7, uint64(tc.blocks)))
			prefixes := [][]int{prompt(48, 1), prompt(80, 2), prompt(33, 3)}
			var now time.Duration
			next, aborted, st := 0, 0, Stats{}
			for step := 0; step < 20000 && (next < 300 || !e.Idle()); step++ {
				for k := 0; k < 2 && next < 300 && rng.IntN(3) == 0; k++ {
					p := append(append([]int(nil), prefixes[rng.IntN(len(prefixes))]...), prompt(1+rng.IntN(150), 100+next)...)
					r := Request{ID: fmt.Sprint(next), Prompt: p, MaxTokens: 1 + rng.IntN(120), MinTokens: rng.IntN(3)}
					if tc.keyRun > 0 && rng.IntN(2) == 0 {
						r.Prompt, r.PromptKeys, r.KeyRun = p[:1+rng.IntN(20)], runKeys(rng, tc.keyRun), tc.keyRun
					}
					if err := e.Add(now, &r); err != nil {
						t.Fatal(err)
					}
					next++
				}
				if len(e.live) > 0 && rng.IntN(40) == 0 {
					ids := make([]string, 0, len(e.live))
					for id := range e.live {
						ids = append(ids, id)
					}
					sort.Strings(ids)
					if e.Abort(ids[rng.IntN(len(ids))]) {
						aborted++
					}
				}
				s := e.Step(now)
				now = max(s.End(), now+time.Millisecond)
				checkPool(t, e)
				if st = e.Stats(); st.UsedBlocks+st.CachedBlocks > cfg.NumGPUBlocks {
					t.Fatalf("used %d + cached %d > %d blocks", st.UsedBlocks, st.CachedBlocks, cfg.NumGPUBlocks)
				}
			}
			if !e.Idle() || next != 300 {
				t.Fatalf("not done: %d added, %d live", next, len(e.live))
			}
			done := st.Finished[FinishLength] + st.Finished[FinishStop] + st.Finished[FinishAbort]
			if done != 300 || st.Finished[FinishAbort] != int64(aborted) {
				t.Fatalf("finished %v (%d aborted by the test), want 300 in all", st.Finished, aborted)
			}
			t.Logf("%d preemptions, %d evictions, %d aborts, hits %d/%d", st.Preemptions, st.Evictions, aborted,
				st.PrefixHits, st.PrefixQueries)
		})
	}
}
