// Package tokenizer turns text into token ids for the mock server's engine
// and for prefix-aware routers: whitespace words, UTF-8 bytes ("character",
// as AIBrix's character tokenizer) and tiktoken cl100k_base loaded offline
// from an embedded BPE file (nothing is downloaded at run time); Load
// also reads a Hugging Face tokenizer.json (HF).
package tokenizer

import (
	"fmt"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer encodes text to token ids. Implementations are safe for
// concurrent use.
type Tokenizer interface {
	// Name is "whitespace", "character" or "tiktoken".
	Name() string
	// Encode returns the token ids of s.
	Encode(s string) []int
}

// VocabSize is the vocabulary size assumed for non-BPE tokenizers; word
// ids are hashed into [0, VocabSize). It matches cl100k_base (100,256).
const VocabSize = 100256

// New returns the named Tokenizer: "whitespace" (default), "character"
// or "tiktoken" (alias "cl100k_base").
func New(name string) (Tokenizer, error) {
	switch name {
	case "", "whitespace", "words":
		return Whitespace{}, nil
	case "character", "bytes":
		return Character{}, nil
	case "tiktoken", "cl100k_base":
		return cl100k()
	}
	return nil, fmt.Errorf("unknown tokenizer %q (known: whitespace, character, tiktoken)", name)
}

// Load returns New(name), or for "hf:PATH" the Hugging Face
// tokenizer.json at PATH (see LoadHF).
func Load(name string) (Tokenizer, error) {
	if path, ok := strings.CutPrefix(name, HFPrefix); ok {
		return LoadHF(path)
	}
	t, err := New(name)
	if err != nil {
		return nil, fmt.Errorf("%w, or hf:PATH for a tokenizer.json", err)
	}
	return t, nil
}

// Whitespace splits on white space; each word maps to a stable id in
// [0, VocabSize) by hash, so equal words give equal ids.
type Whitespace struct{}

// Name implements Tokenizer.
func (Whitespace) Name() string { return "whitespace" }

// Encode implements Tokenizer.
func (Whitespace) Encode(s string) []int {
	words := strings.Fields(s)
	out := make([]int, len(words))
	for i, w := range words {
		out[i] = int(xxhash.Sum64String(w) % VocabSize)
	}
	return out
}

// Character maps every UTF-8 byte to one token (id = byte value).
type Character struct{}

// Name implements Tokenizer.
func (Character) Name() string { return "character" }

// Encode implements Tokenizer.
func (Character) Encode(s string) []int {
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = int(s[i])
	}
	return out
}

// BPE is tiktoken cl100k_base.
type BPE struct{ enc *tiktoken.Tiktoken }

// Name implements Tokenizer.
func (BPE) Name() string { return "tiktoken" }

// Encode implements Tokenizer.
func (b BPE) Encode(s string) []int { return b.enc.Encode(s, nil, nil) }

var (
	bpeOnce sync.Once
	bpe     BPE
	bpeErr  error
)

// cl100k loads cl100k_base once from the embedded BPE ranks.
func cl100k() (Tokenizer, error) {
	bpeOnce.Do(func() {
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding("cl100k_base")
		if err != nil {
			bpeErr = fmt.Errorf("load tiktoken cl100k_base: %w", err)
			return
		}
		bpe = BPE{enc: enc}
	})
	return bpe, bpeErr
}
