package traces

import (
	"encoding/binary"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// PromptTokens renders req's prompt as token ids for token-exact replay on
// completions endpoints. TokenIDs are used as given; each block id maps
// deterministically to BlockSize ids in [0, tokenizer.VocabSize), so equal
// ids give equal server-side prefixes; the result is cut to InputTokens
// when that is set. It returns nil for text-only Requests.
func PromptTokens(req *Request) []int {
	if len(req.TokenIDs) > 0 {
		return req.TokenIDs
	}
	if len(req.BlockIDs) == 0 {
		return nil
	}
	bs := req.BlockSize
	if bs <= 0 {
		bs = 512
	}
	out := make([]int, 0, len(req.BlockIDs)*bs)
	for _, id := range req.BlockIDs {
		for j := 0; j < bs; j++ {
			out = append(out, int(blockToken(id, j)%tokenizer.VocabSize))
		}
	}
	if req.InputTokens > 0 && req.InputTokens < len(out) {
		out = out[:req.InputTokens]
	}
	return out
}

// PromptText renders req's prompt as text: the Prompt or the messages'
// contents when given, else deterministic words synthesised from the
// block ids (one word per token), else InputTokens words unique to the
// Request's ID. With the whitespace tokenizer the word count equals the
// token count.
func PromptText(req *Request) string {
	if req.Prompt != "" {
		return req.Prompt
	}
	if len(req.Messages) > 0 {
		var b strings.Builder
		for i, m := range req.Messages {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(m.Content)
		}
		return b.String()
	}
	if ids := PromptTokens(req); ids != nil {
		return wordsFor(ids)
	}
	seed := xxhash.Sum64String(req.ID)
	ids := make([]int, req.InputTokens)
	for j := range ids {
		ids[j] = int(blockToken(seed, j) % tokenizer.VocabSize)
	}
	return wordsFor(ids)
}

// blockToken is the j-th token of block id.
func blockToken(id uint64, j int) uint64 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], id)
	binary.LittleEndian.PutUint64(b[8:], uint64(j))
	return xxhash.Sum64(b[:])
}

// wordsFor spells each id as a short pronounceable word.
func wordsFor(ids []int) string {
	var b strings.Builder
	b.Grow(len(ids) * 6)
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeWord(&b, id)
	}
	return b.String()
}

const (
	consonants = "bdfgklmnprstvz"
	vowels     = "aeiou"
)

// writeWord writes id as consonant-vowel syllables (distinct ids give
// distinct words).
func writeWord(b *strings.Builder, id int) {
	for {
		b.WriteByte(consonants[id%len(consonants)])
		id /= len(consonants)
		b.WriteByte(vowels[id%len(vowels)])
		id /= len(vowels)
		if id == 0 {
			return
		}
	}
}
