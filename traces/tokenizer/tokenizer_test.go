package tokenizer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name, tok, in string
		wantLen       int
	}{
		{"words", "whitespace", "hello big  world", 3},
		{"bytes", "character", "héllo", 6}, // é is two UTF-8 bytes
		{"bpe", "tiktoken", "hello world", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tk, err := New(tc.tok)
			if err != nil {
				t.Fatal(err)
			}
			got := tk.Encode(tc.in)
			if len(got) != tc.wantLen {
				t.Fatalf("Encode(%q) = %v, want %d tokens", tc.in, got, tc.wantLen)
			}
			if diff := cmp.Diff(got, tk.Encode(tc.in)); diff != "" {
				t.Fatalf("not deterministic: %s", diff)
			}
		})
	}
}

func TestUnknown(t *testing.T) {
	if _, err := New("sentencepiece"); err == nil {
		t.Fatal("want error for unknown tokenizer")
	}
}
