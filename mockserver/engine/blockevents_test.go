package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/tracebench/tracebench/kvevents"
)

// cacheMirror replays block events into a set, as a router's index would.
type cacheMirror map[uint64]bool

func (m cacheMirror) apply(t *testing.T, ev BlockEvent) {
	switch ev.Kind {
	case BlocksStored:
		if len(ev.Tokens) != len(ev.Hashes)*ev.BlockSize {
			t.Fatalf("stored %d hashes with %d tokens", len(ev.Hashes), len(ev.Tokens))
		}
		parent := uint64(0)
		if ev.HasParent {
			parent = ev.Parent
		}
		if got := kvevents.ChainHashes(nil, ev.Tokens, ev.BlockSize, parent); !slices.Equal(got, ev.Hashes) {
			t.Fatalf("stored hashes %x are not the chain of their tokens %x", ev.Hashes, got)
		}
		for _, h := range ev.Hashes {
			m[h] = true
		}
	case BlocksRemoved:
		for _, h := range ev.Hashes {
			if !m[h] {
				t.Fatalf("removed hash %x never stored", h)
			}
			delete(m, h)
		}
	case BlocksCleared:
		clear(m)
	}
}

// TestBlockEventsMirrorTable drives a small engine through evictions and
// checks that the events rebuild its prefix table exactly.
func TestBlockEventsMirrorTable(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BlockSize, cfg.NumGPUBlocks, cfg.MaxModelLen = 4, 24, 64
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m := cacheMirror{}
	e.OnBlockEvent(func(ev BlockEvent) { m.apply(t, ev) })
	now := time.Duration(0)
	for i := range 20 {
		prompt := make([]int, 10+i%3*7)
		for j := range prompt {
			prompt[j] = (j + i%6*100) % 1000 // six families of shared prefixes
		}
		if err := e.Add(now, &Request{ID: string(rune('a' + i)), Prompt: prompt, MaxTokens: 3, IgnoreEOS: true}); err != nil {
			t.Fatal(err)
		}
		for !e.Idle() {
			now = e.Step(now).End()
		}
		if len(m) != e.pool.table.len() {
			t.Fatalf("after request %d: mirror holds %d blocks, table %d", i, len(m), e.pool.table.len())
		}
		for h := range m {
			if _, ok := e.pool.table.get(h); !ok {
				t.Fatalf("mirror holds %x, the table does not", h)
			}
		}
	}
	if e.Stats().Evictions == 0 {
		t.Fatal("test needs evictions")
	}
	if !e.ResetPrefixCache() || len(m) != 0 || e.pool.table.len() != 0 {
		t.Errorf("reset: mirror %d table %d, want both empty", len(m), e.pool.table.len())
	}
}

func TestBlockHashesMatchKVEvents(t *testing.T) {
	toks := make([]int, 100)
	for i := range toks {
		toks[i] = i * 31
	}
	for _, salt := range []string{"", "lora:x\x00"} {
		want := kvevents.ChainHashes(nil, toks, 16, kvevents.SaltHash(salt))
		if got := blockHashes(toks, 16, salt); !slices.Equal(got, want) {
			t.Errorf("salt %q: engine hashes differ from kvevents.ChainHashes", salt)
		}
	}
}
