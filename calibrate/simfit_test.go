package calibrate

import (
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// slotEngine is a 4-slot llama.cpp engine without jitter whose slot
// saves cost 300 ms.
func slotEngine() engine.Config {
	c := engine.DefaultConfig()
	c.Cache, c.MaxNumSeqs, c.MaxModelLen, c.NumGPUBlocks = engine.CachePerSlot, 4, 4096, 1024
	c.HostCacheTokens, c.Latency.Jitter = 1<<16, 0
	c.LlamaCpp = engine.LlamaCppConfig{SaveFixed: 300 * time.Millisecond}
	return c
}

// prompt returns n token ids from base.
func prompt(base, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = base + i
	}
	return p
}

// TestPairsServerPromptTime: a request whose results kept the server's
// own prompt time adds a prompt pair (placement to first token, without
// the save before it); one without adds none. Only the second request
// needs a save (the first three slots were empty).
func TestPairsServerPromptTime(t *testing.T) {
	var reqs []sentReq
	for i := range 5 {
		q := sentReq{id: string(rune('a' + i)), sent: time.Duration(i) * time.Second, prompt: prompt(1000*(i+1), 100),
			out: 4, ok: true, end: time.Duration(i)*time.Second + 900*time.Millisecond, ttft: 0.05, tpot: 0.01}
		if i == 4 {
			q.promptSecs = 0.02 // the server's timings.prompt_ms
		}
		reqs = append(reqs, q)
	}
	set := &replaySet{reqs: reqs, kinds: map[int]fileKind{0: kindPrompt}}
	f := &replayFit{cfg: slotEngine(), sets: []*replaySet{set}}
	ttft, _, promptPairs, err := f.pairs(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ttft) != 5 || len(promptPairs) != 1 {
		t.Fatalf("%d TTFT and %d prompt pairs, want 5 and 1", len(ttft), len(promptPairs))
	}
	// The fifth request takes the least recently used slot, which holds
	// the first prompt: its TTFT includes the 300 ms save, its prompt
	// time does not.
	if got, sim := promptPairs[0][0], ttft[4][0]; !(got > 0 && got < 0.3 && sim > 0.3) {
		t.Fatalf("prompt time %.3f s, TTFT %.3f s: want the save in the TTFT only", got, sim)
	}
}
