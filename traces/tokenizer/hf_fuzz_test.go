package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fullByteLevel is a GPT-2-layout tokenizer.json with every byte's
// character in the vocabulary and a few merges, so no input byte can be
// lost.
func fullByteLevel(t testing.TB) *HF {
	vocab := map[string]int{}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	merges := []string{"Ġ t", "h e", "Ġt he", "Ġ Ġ", "ĠĠ ĠĠ"}
	for _, m := range merges {
		a, b, _ := cutSpace(m)
		vocab[a+b] = len(vocab)
	}
	f := map[string]any{
		"added_tokens":  []map[string]any{{"id": len(vocab), "content": "<|eot|>", "normalized": false, "special": true}},
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": merges},
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseHF(data)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func cutSpace(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// FuzzHFEncode: a byte-level tokenizer loses no byte (its tokens spell
// the input back), and every fixture encodes any text deterministically
// to ids of its vocabulary.
func FuzzHFEncode(f *testing.F) {
	for _, s := range []string{"hello world!", "hi  there\né", "</s>hi", "12345 \r\n\t x", "<|eot|>the", "\xff\xfe"} {
		f.Add(s)
	}
	full := fullByteLevel(f)
	runeToByte := map[rune]byte{}
	for b := 0; b < 256; b++ {
		runeToByte[byteToRune[b]] = byte(b)
	}
	reverse := map[int]string{}
	for tok, id := range full.bpe.vocab {
		reverse[id] = tok
	}
	reverse[len(full.bpe.vocab)] = "<|eot|>"
	var fixtures []*HF
	for _, name := range []string{"bytelevel.json", "llama3.json", "sentencepiece.json", "metaspace.json"} {
		h, err := LoadHF(filepath.Join("testdata", "hf", name))
		if err != nil {
			f.Fatal(err)
		}
		fixtures = append(fixtures, h)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back []byte
		for _, id := range full.Encode(s) {
			tok, ok := reverse[id]
			if !ok {
				t.Fatalf("id %d not in the vocabulary", id)
			}
			if tok == "<|eot|>" {
				back = append(back, tok...)
				continue
			}
			for _, r := range tok {
				back = append(back, runeToByte[r])
			}
		}
		if string(back) != s {
			t.Fatalf("%q encodes back to %q", s, back)
		}
		for _, h := range fixtures {
			a := h.Encode(s)
			if !slices.Equal(a, h.Encode(s)) {
				t.Fatalf("%s: %q encodes two ways", h.name, s)
			}
			for _, id := range a {
				if id < 0 || id > 28 {
					t.Fatalf("%s: %q gives id %d", h.name, s, id)
				}
			}
		}
	})
}

// FuzzHFParse: any tokenizer.json is a tokenizer or an error, never a
// panic, and a tokenizer encodes a sample text.
func FuzzHFParse(f *testing.F) {
	for _, name := range []string{"bytelevel.json", "llama3.json", "sentencepiece.json", "metaspace.json"} {
		data, err := readFixture(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := parseHF(data)
		if err != nil {
			return
		}
		h.Encode("hello there 123\n<s></s> é")
	})
}

func readFixture(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", "hf", name))
}
