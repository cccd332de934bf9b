package tokenizer

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// hfAddedToken is an entry of tokenizer.json's added_tokens.
type hfAddedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedVocab splits text on the added tokens before the model sees it,
// as tokenizers' AddedVocabulary does: tokens with normalized false are
// found in the raw text, the others in the normalized text; matching is
// leftmost-longest, honouring single_word, lstrip and rstrip.
type addedVocab struct {
	raw, normalized addedIndex
}

// addedIndex lists the tokens by their first byte, longest first.
type addedIndex struct {
	byFirst [256][]hfAddedToken
	n       int
}

// span of text: an added token (id ≥ 0) or text to encode (id -1),
// starting at byte start of the text it was cut from.
type textPiece struct {
	text  string
	id    int
	start int
}

func newAddedVocab(tokens []hfAddedToken, n normalizer) (*addedVocab, error) {
	a := &addedVocab{}
	var raw, normalized []hfAddedToken
	for i, t := range tokens {
		if t.Content == "" {
			return nil, fmt.Errorf("token %d (id %d) has empty content", i, t.ID)
		}
		if t.ID < 0 {
			return nil, fmt.Errorf("token %q: id %d", t.Content, t.ID)
		}
		if t.Normalized {
			t.Content = n.normalize(t.Content)
			if t.Content == "" {
				continue
			}
			normalized = append(normalized, t)
		} else {
			raw = append(raw, t)
		}
	}
	a.raw, a.normalized = index(raw), index(normalized)
	return a, nil
}

func index(toks []hfAddedToken) addedIndex {
	sort.SliceStable(toks, func(i, j int) bool { return len(toks[i].Content) > len(toks[j].Content) })
	var x addedIndex
	for _, t := range toks {
		x.byFirst[t.Content[0]] = append(x.byFirst[t.Content[0]], t)
	}
	x.n = len(toks)
	return x
}

func (a *addedVocab) splitRaw(s string) []textPiece        { return split(s, &a.raw) }
func (a *addedVocab) splitNormalized(s string) []textPiece { return split(s, &a.normalized) }

// split cuts s at the added tokens of toks (longest first).
func split(s string, toks *addedIndex) []textPiece {
	if toks.n == 0 {
		return []textPiece{{s, -1, 0}}
	}
	var out []textPiece
	from := 0 // start of the text not yet emitted
	for i := 0; i < len(s); {
		t, ok := longestAt(s, i, toks)
		if !ok {
			i++
			continue
		}
		start, stop := i, i+len(t.Content)
		if t.SingleWord && (start > 0 && endsWithWord(s[:start]) || stop < len(s) && startsWithWord(s[stop:])) {
			i = stop
			continue
		}
		if t.LStrip {
			start = max(from, len(strings.TrimRightFunc(s[:start], unicode.IsSpace)))
		}
		if t.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if start > from {
			out = append(out, textPiece{s[from:start], -1, from})
		}
		out = append(out, textPiece{s[start:stop], t.ID, start})
		from, i = stop, stop
	}
	if from < len(s) || len(out) == 0 {
		out = append(out, textPiece{s[from:], -1, from})
	}
	return out
}

// longestAt returns the longest token whose content starts s at i.
func longestAt(s string, i int, toks *addedIndex) (hfAddedToken, bool) {
	for _, t := range toks.byFirst[s[i]] {
		if strings.HasPrefix(s[i:], t.Content) {
			return t, true
		}
	}
	return hfAddedToken{}, false
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordRune(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}
