package traces

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

func TestPromptTokens(t *testing.T) {
	a := &Request{ID: "a", BlockIDs: []uint64{7, 8, 9}, BlockSize: 4, InputTokens: 10}
	b := &Request{ID: "b", BlockIDs: []uint64{7, 8, 5}, BlockSize: 4, InputTokens: 12}
	ta, tb := PromptTokens(a), PromptTokens(b)
	if len(ta) != 10 || len(tb) != 12 {
		t.Fatalf("lengths %d, %d: want InputTokens 10, 12", len(ta), len(tb))
	}
	// Blocks 7 and 8 are shared: 8 equal leading tokens, then block 9 vs 5 differ.
	if d := cmp.Diff(ta[:8], tb[:8]); d != "" {
		t.Errorf("shared blocks render differently:\n%s", d)
	}
	if slices.Equal(ta[8:10], tb[8:10]) {
		t.Errorf("different block ids 9 and 5 render the same tokens %v", ta[8:10])
	}
	if !slices.Equal(PromptTokens(a), ta) {
		t.Error("rendering is not deterministic")
	}
	for _, id := range append(ta, tb...) {
		if id < VocabLo || id >= VocabHi {
			t.Fatalf("token %d outside [%d, %d)", id, VocabLo, VocabHi)
		}
	}
}

func TestPromptTokensLengths(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want int
	}{
		{"cut to InputTokens", Request{ID: "x", BlockIDs: []uint64{1, 2}, BlockSize: 512, InputTokens: 600}, 600},
		{"whole blocks when InputTokens unset", Request{ID: "x", BlockIDs: []uint64{1, 2}, BlockSize: 16}, 32},
		{"padded past the blocks", Request{ID: "x", BlockIDs: []uint64{1}, BlockSize: 16, InputTokens: 40}, 40},
		{"default block size 512", Request{ID: "x", BlockIDs: []uint64{1}}, 512},
		{"token ids as given", Request{ID: "x", TokenIDs: []int{3, 4, 5}, BlockIDs: []uint64{1}}, 3},
		{"no ids", Request{ID: "x", InputTokens: 5}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(PromptTokens(&tc.req)); got != tc.want {
				t.Errorf("len = %d, want %d", got, tc.want)
			}
		})
	}
	// Padding is unique to the Request: two requests with the same block
	// differ after it.
	p := PromptTokens(&Request{ID: "p", BlockIDs: []uint64{1}, BlockSize: 16, InputTokens: 40})
	q := PromptTokens(&Request{ID: "q", BlockIDs: []uint64{1}, BlockSize: 16, InputTokens: 40})
	if !slices.Equal(p[:16], q[:16]) || slices.Equal(p[16:], q[16:]) {
		t.Error("want equal block tokens and distinct padding")
	}
}

func TestPromptText(t *testing.T) {
	ws := tokenizer.Whitespace{}
	tests := []struct {
		name  string
		req   Request
		words int
	}{
		{"blocks", Request{ID: "x", BlockIDs: []uint64{1, 2}, BlockSize: 16, InputTokens: 20}, 20},
		{"input tokens only", Request{ID: "x", InputTokens: 33}, 33},
		{"prompt", Request{ID: "x", Prompt: "a b  c", InputTokens: 99}, 3},
		{"messages", Request{ID: "x", Messages: []Message{{Role: "system", Content: "a b"}, {Role: "user", Content: "c"}}}, 3},
		{"empty", Request{ID: "x"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := len(ws.Encode(PromptText(&tc.req))); got != tc.words {
				t.Errorf("whitespace tokens = %d, want %d", got, tc.words)
			}
		})
	}
	// Chat text of block traces keeps the shared prefix.
	a := PromptText(&Request{ID: "a", BlockIDs: []uint64{7, 9}, BlockSize: 8})
	b := PromptText(&Request{ID: "b", BlockIDs: []uint64{7, 5}, BlockSize: 8})
	wa, wb := strings.Fields(a), strings.Fields(b)
	if !slices.Equal(wa[:8], wb[:8]) || slices.Equal(wa[8:], wb[8:]) {
		t.Errorf("text prefixes: want 8 equal words then different ones:\n%s\n%s", a, b)
	}
	// Requests with only a length get words no other request shares.
	if PromptText(&Request{ID: "1", InputTokens: 8}) == PromptText(&Request{ID: "2", InputTokens: 8}) {
		t.Error("distinct IDs render the same text")
	}
}

func TestWordsDistinct(t *testing.T) {
	seen := map[string]int{}
	for id := 0; id < VocabHi; id++ {
		w := wordsFor([]int{id})
		if prev, ok := seen[w]; ok {
			t.Fatalf("ids %d and %d both spell %q", prev, id, w)
		}
		seen[w] = id
	}
}

func TestSynthWords(t *testing.T) {
	if got := len(strings.Fields(SynthWords(42, 100))); got != 100 {
		t.Errorf("SynthWords(42, 100) has %d words", got)
	}
	if SynthWords(1, 5) == SynthWords(2, 5) || SynthWords(1, 5) != SynthWords(1, 5) {
		t.Error("SynthWords must be a function of its key")
	}
	if SynthWords(1, 0) != "" {
		t.Error("SynthWords(k, 0) is not empty")
	}
}

func BenchmarkPromptTokens(b *testing.B) {
	req := &Request{ID: "x", BlockIDs: make([]uint64, 24), BlockSize: 512, InputTokens: 12035}
	for i := range req.BlockIDs {
		req.BlockIDs[i] = uint64(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		PromptTokens(req)
	}
	b.ReportMetric(float64(req.InputTokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
