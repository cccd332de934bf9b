package traces

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Token ids synthesised for block ids lie in [VocabLo, VocabHi): inside
// every common model vocabulary (Llama-2 and Mistral 32,000; Llama-3
// 128,256; Qwen2 151,646; cl100k_base 100,256), above the low ids where
// tokenizers keep special, control and byte-fallback tokens, so a real
// vLLM server accepts them as a prompt of token ids.
const (
	VocabLo = 1000
	VocabHi = 32000
)

// PromptTokens renders req's prompt as token ids for token-exact replay on
// completions endpoints. TokenIDs are used as given; each block id maps
// deterministically to BlockSize ids in [VocabLo, VocabHi) (a function of
// the id alone), so equal ids give equal server-side prefixes. The result
// has InputTokens ids when that is set: cut, or padded with ids unique to
// the Request's ID when the blocks fall short. It returns nil for
// Requests with neither block nor token ids.
func PromptTokens(req *Request) []int {
	if len(req.TokenIDs) > 0 {
		return req.TokenIDs
	}
	return AppendPromptTokens(nil, req)
}

// AppendPromptTokens appends req's block-id prompt, rendered as
// PromptTokens does, to dst and returns the extended slice; it appends
// nothing for Requests without block ids (use TokenIDs as they are). A
// caller that renders many prompts it does not keep reuses one buffer.
func AppendPromptTokens(dst []int, req *Request) []int {
	return appendPromptFrom(dst, req, 0)
}

// promptLen is the token count of req's rendered block-id prompt.
func promptLen(req *Request) int {
	if req.InputTokens > 0 {
		return req.InputTokens
	}
	return len(req.BlockIDs) * blockSize(req)
}

// appendPromptFrom appends the tokens of req's rendered block-id prompt
// from position from on.
func appendPromptFrom(dst []int, req *Request, from int) []int {
	if len(req.BlockIDs) == 0 {
		return dst
	}
	bs, n := blockSize(req), promptLen(req)
	out := slices.Grow(dst, max(n-from, 0))
	for pos := from; pos < n; {
		i, off := pos/bs, pos%bs
		if i >= len(req.BlockIDs) {
			out = appendTokens(out, idKey(req.ID), pos-len(req.BlockIDs)*bs, n-pos)
			break
		}
		k := min(bs-off, n-pos)
		out = appendTokens(out, blockKey(req.BlockIDs[i]), off, k)
		pos += k
	}
	return out
}

// PromptText renders req's prompt as text: the Prompt or the messages'
// contents (joined by newlines) when given, else one word per token of
// PromptTokens, else InputTokens words unique to the Request's ID. With
// the whitespace tokenizer the word count equals the token count, and
// equal block ids give equal leading words, so chat endpoints see the same
// shared prefixes as token-exact replay.
func PromptText(req *Request) string {
	if req.Prompt != "" {
		return req.Prompt
	}
	if len(req.Messages) > 0 {
		return joinContents(req.Messages)
	}
	if ids := PromptTokens(req); ids != nil {
		return wordsFor(ids)
	}
	return wordsFor(appendTokens(make([]int, 0, max(req.InputTokens, 0)), idKey(req.ID), 0, req.InputTokens))
}

// SynthWords returns n words determined by key alone (one whitespace
// token each): the text generators use for prompts and answers.
func SynthWords(key uint64, n int) string {
	return wordsFor(appendTokens(make([]int, 0, max(n, 0)), key, 0, n))
}

// blockSize is req's tokens per block id (DefaultBlockSize when unset).
func blockSize(req *Request) int {
	if req.BlockSize > 0 {
		return req.BlockSize
	}
	return DefaultBlockSize
}

// blockKey is the stream key of block id.
func blockKey(id uint64) uint64 {
	var b [9]byte
	b[0] = 'b'
	binary.LittleEndian.PutUint64(b[1:], id)
	return xxhash.Sum64(b[:])
}

// idKey is the stream key of a Request's unique tokens.
func idKey(id string) uint64 { return xxhash.Sum64String("r" + id) }

// appendTokens appends n ids in [VocabLo, VocabHi) of the splitmix64
// stream seeded by key, from its position off on.
func appendTokens(dst []int, key uint64, off, n int) []int {
	s := streamState(key, off)
	for j := 0; j < n; j++ {
		s += golden
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		dst = append(dst, VocabLo+int(z%uint64(VocabHi-VocabLo)))
	}
	return dst
}

// golden is splitmix64's increment.
const golden = 0x9e3779b97f4a7c15

// streamState is the splitmix64 state of key's stream before its token at
// position off: the tokens from off on are a function of it alone.
func streamState(key uint64, off int) uint64 { return key + uint64(off)*golden }

// wordsFor spells each id as a short pronounceable word, separated by
// spaces (distinct ids give distinct words).
func wordsFor(ids []int) string {
	var b strings.Builder
	b.Grow(len(ids) * 7)
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

// writeWord writes id as consonant-vowel syllables, least significant
// first (distinct non-negative ids give distinct words).
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
