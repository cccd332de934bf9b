package traces

import (
	"slices"
	"strings"
	"testing"
)

func TestSynthIDs(t *testing.T) {
	ids := appendTokens(nil, 42, 0, 300)
	got, ok := SynthIDs(wordsFor(ids))
	if !ok || !slices.Equal(got, ids) {
		t.Fatalf("round trip of %d ids failed: ok %v", len(ids), ok)
	}
	if got, ok := SynthIDs(wordsFor(ids[:3]) + "\n" + wordsFor(ids[3:5])); !ok || !slices.Equal(got, ids[:5]) {
		t.Errorf("a system prompt and a question joined by a newline: %v, %v", got, ok)
	}
	for _, text := range []string{"", "hello world", " ", "ba", "dugigaba", wordsFor([]int{5})} {
		if _, ok := SynthIDs(text); ok {
			t.Errorf("SynthIDs(%q) accepted", text)
		}
	}
	for id := range 200000 {
		var b = wordsFor([]int{id})
		if got, ok := wordID(b); !ok || got != id {
			t.Fatalf("wordID(%q) = %d, %v; want %d", b, got, ok, id)
		}
	}
}

// FuzzSynthIDs: whatever SynthIDs accepts spells back to the same text.
func FuzzSynthIDs(f *testing.F) {
	f.Add("dugiga lekega koduka")
	f.Add("ba da")
	f.Fuzz(func(t *testing.T, text string) {
		ids, ok := SynthIDs(text)
		if ok && wordsFor(ids) != strings.Join(strings.Fields(text), " ") {
			t.Fatalf("SynthIDs(%q) = %v, which spells %q", text, ids, wordsFor(ids))
		}
	})
}
