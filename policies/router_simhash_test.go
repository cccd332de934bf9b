package policies

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

// TestSimHashFingerprint works fingerprints by hand: one feature gives its
// own hash; two features of weight 1 keep the bits both set (a bit they
// disagree on sums to 0, which is not positive), so the fingerprint is
// h1 AND h2.
func TestSimHashFingerprint(t *testing.T) {
	le := func(id uint64) uint64 {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], id)
		return xxhash.Sum64(b[:])
	}
	tests := []struct {
		name string
		p    Params
		req  *traces.Request
		want uint64
	}{
		{"under 4 word characters: one feature", nil, textReq("a", "Ab!", 1), xxhash.Sum64String("ab")},
		{"two shingles", nil, textReq("b", "abcde", 2), xxhash.Sum64String("abcd") & xxhash.Sum64String("bcde")},
		{"case and punctuation ignored", nil, textReq("c", "AB, c-DE", 2), xxhash.Sum64String("abcd") & xxhash.Sum64String("bcde")},
		{"cut at max_chars", Params{"max_chars": traces.ParamInt(5)}, textReq("d", "abcdeXYZ", 2), xxhash.Sum64String("abcd") & xxhash.Sum64String("bcde")},
		// 512 characters = 128 tokens, inside the first 512-token block:
		// the first block id alone.
		{"blocks: the first block covers the opening", nil, blockReq("e", 512, 1500, 7, 8, 9), le(7)},
		// 4096 characters = 1024 tokens: blocks 7 and 8 with weight 512 each.
		{"blocks: equal weights", Params{"max_chars": traces.ParamInt(4096)}, blockReq("f", 512, 1500, 7, 8, 9), le(7) & le(8)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "simhash", tc.p, 1).(*simHash)
			if got := r.fingerprint(tc.req); got != tc.want {
				t.Fatalf("fingerprint %016x, want %016x (%d bits apart)", got, tc.want, bits.OnesCount64(got^tc.want))
			}
		})
	}
}

// TestSimHashRouting: equal openings go to one backend whatever follows;
// the adapter is part of the key; removing a backend moves only the
// prompts it had; a repeat predicts the blocks sent before.
func TestSimHashRouting(t *testing.T) {
	bs := fleet(0, 0, 0, 0)
	r := mustRouter(t, "simhash", Params{"max_chars": traces.ParamInt(64)}, 1)
	system := strings.Repeat("You are a helpful assistant. ", 3)
	first := mustPick(t, r, textReq("a", system+"What is 2+2?", 100), State{Backends: bs})
	for i := range 20 {
		ch := mustPick(t, r, textReq(fmt.Sprint(i), system+fmt.Sprintf("question %d", i), 100), State{Backends: bs})
		if ch.Backend != first.Backend || ch.Reason != "hash" {
			t.Fatalf("prompt %d with the same 64-character opening went to %d (%s), want %d", i, ch.Backend, ch.Reason, first.Backend)
		}
	}
	moved := 0
	picks := map[string]int{}
	for i := range 400 {
		req := textReq(fmt.Sprint(i), fmt.Sprintf("distinct prompt number %d with its own opening", i), 20)
		picks[req.ID] = mustPick(t, r, req, State{Backends: bs}).Backend
	}
	per := map[int]int{}
	for _, b := range picks {
		per[b]++
	}
	for b := range 4 {
		if per[b] < 50 {
			t.Errorf("backend %d got %d of 400 distinct prompts, want at least 50: %v", b, per[b], per)
		}
	}
	three := []Backend{bs[0], bs[1], bs[3]}
	for i := range 400 {
		req := textReq(fmt.Sprint(i), fmt.Sprintf("distinct prompt number %d with its own opening", i), 20)
		got := mustPick(t, r, req, State{Backends: three}).Backend
		if picks[req.ID] != 2 && got != picks[req.ID] {
			moved++
		}
		if got == 2 {
			t.Fatalf("picked removed backend 2")
		}
	}
	if moved != 0 {
		t.Errorf("%d prompts not on the removed backend moved", moved)
	}
	lora := textReq("l", system+"What is 2+2?", 100)
	lora.LoRA = "math"
	keys := map[int]bool{}
	for _, name := range []string{"math", "sql", "chat", "law", "med", "fin", "bio", "geo"} {
		lora.LoRA = name
		keys[mustPick(t, r, lora, State{Backends: bs}).Backend] = true
	}
	if len(keys) < 2 {
		t.Errorf("8 adapters with one prompt all went to one backend: the adapter is not in the key")
	}
	r = PredictHits(mustRouter(t, "simhash", nil, 1))
	text := strings.Repeat("abcdefgh", 25) // 200 characters
	if ch := mustPick(t, r, textReq("p1", text, 200), State{Backends: bs}); ch.PredictedHitTokens != 0 {
		t.Fatalf("first pick predicts %d tokens", ch.PredictedHitTokens)
	}
	// The shared hit model's 64-character blocks: 3 full blocks = 192 characters
	// of 200 = 192 of the 200 tokens.
	if ch := mustPick(t, r, textReq("p2", text, 200), State{Backends: bs}); ch.PredictedHitTokens != 192 {
		t.Fatalf("repeat predicts %d tokens, want 192", ch.PredictedHitTokens)
	}
}
