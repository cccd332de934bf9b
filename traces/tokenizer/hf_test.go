package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fixtures in testdata/hf are small tokenizer.json files in the
// layouts of common models; the expected ids are worked out by hand from
// their vocabularies and merge ranks (comments give the steps).
func TestHFEncode(t *testing.T) {
	tests := []struct {
		file, text string
		want       []int
	}{
		// GPT-2 ByteLevel: the regex gives "hello", " world", "!"; the
		// space is Ġ; merges by rank give hello (12) and Ġworld (17).
		{"bytelevel.json", "hello world!<|endoftext|>", []int{12, 17, 0, 18}},
		// \s+(?!\S) leaves the second space to " world".
		{"bytelevel.json", "hello  world", []int{12, 8, 17}},
		// é is bytes C3 A9, mapped to Ã and ©.
		{"bytelevel.json", "é", []int{19, 20}},
		// No merge "l o": the vocabulary's "lo" is not reached.
		{"bytelevel.json", "lo", []int{4, 5}},
		// h e l l → he l l (rank 0) → he ll (1) → hell (2).
		{"bytelevel.json", "hell", []int{11}},
		// Equal ranks merge leftmost first: ll l.
		{"bytelevel.json", "lll", []int{10, 4}},
		// \n is Ċ; q is not in the vocabulary and there is no unk: dropped.
		{"bytelevel.json", "hello\nq", []int{12, 27}},
		// Llama-3 layout: Split regex, ByteLevel without regex,
		// ignore_merges (a word in the vocabulary is one token), BOS 28.
		{"llama3.json", "lo", []int{28, 21}},
		// \p{N}{1,3} cuts digits in threes.
		{"llama3.json", "hello 12345", []int{28, 12, 8, 22, 23, 24, 25, 26}},
		{"llama3.json", "hello world", []int{28, 12, 17}},
		{"llama3.json", "<|begin_of_text|>hello", []int{28, 28, 12}},
		// Llama-2 layout: Prepend ▁ and spaces → ▁, one word, byte
		// fallback for \n (<0x0A>) and é (<0xC3> <0xA9>), BOS 1:
		// ▁ h i ▁ t h e r e → ▁h (0) → ▁hi (1) → ▁t (2) → he (3) →
		// ▁the (4) → re (5) → ▁there (6).
		{"sentencepiece.json", "hi there\né", []int{1, 10, 18, 3, 4, 5}},
		// z has no byte token: unk, and the two fuse into one.
		{"sentencepiece.json", "hi zz", []int{1, 10, 6, 0}},
		// Added tokens are cut first; the normalizer then sees "hi".
		{"sentencepiece.json", "</s>hi", []int{1, 2, 10}},
		{"sentencepiece.json", "", []int{1}},
		// Metaspace prepend_scheme first: ▁ only at the text's start.
		{"metaspace.json", "hi there", []int{1, 10, 18}},
		{"metaspace.json", "</s>hi there", []int{1, 2, 7, 8, 18}},
		// Split MergedWithNext: ▁hi, ▁, ▁there.
		{"metaspace.json", "hi  there", []int{1, 10, 6, 18}},
	}
	for _, tc := range tests {
		tok, err := Load("hf:" + filepath.Join("testdata", "hf", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(tc.text); !cmp.Equal(got, tc.want) {
			t.Errorf("%s %q: ids %v, want %v", tc.file, tc.text, got, tc.want)
		}
		if tok.Name() != "hf:"+tc.file {
			t.Errorf("name %q", tok.Name())
		}
	}
}

// TestHFErrors: what is not implemented is a one-line error naming the
// file and the component.
func TestHFErrors(t *testing.T) {
	base := `"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}`
	tests := []struct{ name, json, want string }{
		{"unigram", `{"model": {"type": "Unigram", "vocab": []}}`, "model type Unigram is not supported"},
		{"bert pre", `{"pre_tokenizer": {"type": "BertPreTokenizer"}, ` + base + `}`, "pre_tokenizer type BertPreTokenizer is not supported"},
		{"nested pre", `{"pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Punctuation"}]}, ` + base + `}`, "pre_tokenizer type Punctuation is not supported"},
		{"bert norm", `{"normalizer": {"type": "BertNormalizer"}, ` + base + `}`, "normalizer type BertNormalizer is not supported"},
		{"post", `{"post_processor": {"type": "Weird"}, ` + base + `}`, "post_processor type Weird is not supported"},
		{"merge", `{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}}`, `model BPE merge 0 ("a" "b"): token not in the vocabulary`},
		{"dropout", `{"model": {"type": "BPE", "dropout": 0.1, "vocab": {}, "merges": []}}`, "model BPE dropout 0.1 is not supported"},
		{"behavior", `{"pre_tokenizer": {"type": "Split", "pattern": {"String": " "}, "behavior": "Sideways"}, ` + base + `}`, `pre_tokenizer Split: behavior "Sideways"`},
		{"regex", `{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"}, ` + base + `}`, `pre_tokenizer Split: regex "("`},
		{"no model", `{}`, "model missing"},
		{"not json", `vocab`, "not a tokenizer.json"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tc.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load("hf:" + path)
		if err == nil || !strings.Contains(err.Error(), "tokenizer "+path+": "+tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tc.name, err, "tokenizer "+path+": "+tc.want)
		}
	}
	if _, err := Load("hf:" + filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v", err)
	}
}

// TestHFAddedTokenOptions checks lstrip, rstrip and single_word.
func TestHFAddedTokenOptions(t *testing.T) {
	vocab := `{"x": 0, "y": 1, "<m>": 2, " ": 3}`
	added := `[{"id": 2, "content": "<m>", "single_word": true, "lstrip": true, "rstrip": true, "normalized": false, "special": true}]`
	h, err := parseHF([]byte(`{"added_tokens": ` + added + `, "model": {"type": "BPE", "vocab": ` + vocab + `, "merges": []}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want []int
	}{
		{"x <m> y", []int{0, 2, 1}}, // spaces around are stripped into the token
		{"x<m>y", []int{0, 1}},      // not a single word: "<", "m", ">" are unknown and dropped
		{"x  <m>", []int{0, 2}},     // lstrip takes every space before it
		{"<m><m>", []int{2, 2}},     // a token next to a token is a single word
		{"x <m>y", []int{0, 3, 1}},  // followed by a word character: not the token
	} {
		if got := h.Encode(tc.text); !cmp.Equal(got, tc.want) {
			t.Errorf("%q: ids %v, want %v", tc.text, got, tc.want)
		}
	}
}
