package engine

import (
	"fmt"
	"testing"
	"time"
)

// A decode request whose prompt arrived from a remote prefill computes
// only its last prompt token, reports the rest as cached, keeps the
// transferred blocks in its prefix cache for the next request, and is not
// counted as a local prefix hit.
func TestRemoteTokensSkipPrefill(t *testing.T) {
	tests := []struct {
		name         string
		prompt       int
		remote       int
		wantPrefill  int // prompt tokens computed in the first step
		wantCached   int
		wantNextHits int64 // local hits of a second request with the same prompt
	}{
		// 64 tokens = 4 blocks; the last token is recomputed: 63 remote.
		{"whole prompt", 64, 64, 1, 63, 48},
		// 40 remote of 64: 24 computed, 40 cached; 2 full blocks remote
		// plus a third block completed by the computed tokens.
		{"part of it", 64, 40, 24, 40, 48},
		{"none", 64, 0, 64, 0, 48},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mustNew(t, DefaultConfig())
			p := prompt(tt.prompt, 7)
			steps := drive(t, e, []arrival{{0, Request{ID: "d", Prompt: p, MaxTokens: 2, IgnoreEOS: true, RemoteTokens: tt.remote}}}, 100)
			if got := steps[0].PrefillTokens; got != tt.wantPrefill {
				t.Errorf("first step prefill tokens %d, want %d", got, tt.wantPrefill)
			}
			ev, _, ok := find(steps, "d", isAdmitted)
			if !ok || ev.CachedTokens != tt.wantCached {
				t.Errorf("cached tokens %d (found %v), want %d", ev.CachedTokens, ok, tt.wantCached)
			}
			st := e.Stats()
			if st.PrefixHits != 0 || st.RemoteTokens != int64(max(0, tt.wantCached)) {
				t.Errorf("prefix hits %d remote %d, want 0 and %d", st.PrefixHits, st.RemoteTokens, tt.wantCached)
			}
			drive(t, e, []arrival{{time.Second, Request{ID: "n", Prompt: p, MaxTokens: 1}}}, 100)
			if got := e.Stats().PrefixHits; got != tt.wantNextHits {
				t.Errorf("next request's prefix hits %d, want %d", got, tt.wantNextHits)
			}
		})
	}
}

func TestKVTransferTime(t *testing.T) {
	c := KVTransferConfig{Latency: time.Millisecond, PerToken: 10 * time.Microsecond}
	for _, tt := range []struct {
		tokens int
		want   time.Duration
	}{{0, 0}, {1, 1010 * time.Microsecond}, {1000, 11 * time.Millisecond}} {
		if got := c.Time(tt.tokens); got != tt.want {
			t.Errorf("Time(%d) = %v, want %v", tt.tokens, got, tt.want)
		}
	}
}

// The blocks a decode receives from a remote prefill are published as
// stored, as vLLM's decode instance caches them once the transfer ends:
// the same chain of hashes the prefill instance stores.
func TestRemoteTokensPublishStored(t *testing.T) {
	stored := func(remote int) []uint64 {
		e := mustNew(t, DefaultConfig())
		var got []uint64
		e.OnBlockEvent(func(ev BlockEvent) {
			if ev.Kind == BlocksStored {
				got = append(got, ev.Hashes...)
			}
		})
		drive(t, e, []arrival{{0, Request{ID: "r", Prompt: prompt(50, 3), MaxTokens: 1, RemoteTokens: remote}}}, 100)
		return got
	}
	pre, dec := stored(0), stored(50)
	if len(dec) != 3 || fmt.Sprint(pre) != fmt.Sprint(dec) {
		t.Errorf("decode stored %x, prefill %x: want the same 3 blocks", dec, pre)
	}
}
