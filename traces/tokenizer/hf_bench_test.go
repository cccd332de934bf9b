package tokenizer

import (
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHFEncodeLongPrompt encodes a 20,000-character prompt with the
// Llama-2 layout fixture, where the whole prompt is one word for the BPE
// model (no pre-tokenizer): the merge loop must stay near n log n.
func BenchmarkHFEncodeLongPrompt(b *testing.B) {
	tok, err := LoadHF(filepath.Join("testdata", "hf", "sentencepiece.json"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("hi there ", 20000/9)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Encode(text)
	}
}
