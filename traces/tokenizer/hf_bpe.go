package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// bpeModel is the tokenizers BPE model (tokenizers/src/models/bpe): a
// word starts as its characters (with continuing_subword_prefix and
// end_of_word_suffix), unknown characters become their <0xNN> byte
// tokens (byte_fallback) or unk_token (fused when fuse_unk), and the
// adjacent pair of lowest merge rank, leftmost first, is merged until
// none has a rank. With ignore_merges a word in the vocabulary is one
// token.
type bpeModel struct {
	vocab        map[string]int
	merges       map[[2]int]merge
	unk          int // -1 when none
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string
	suffix       string
	byteIDs      [256]int // <0xNN> ids, -1 when absent
}

// merge is a merge rule: its rank (priority, lower first) and the id of
// the merged token.
type merge struct{ rank, id int }

// bpeJSON is the model section of tokenizer.json.
type bpeJSON struct {
	Type         string          `json:"type"`
	Dropout      *float64        `json:"dropout"`
	UnkToken     *string         `json:"unk_token"`
	Prefix       *string         `json:"continuing_subword_prefix"`
	Suffix       *string         `json:"end_of_word_suffix"`
	FuseUnk      bool            `json:"fuse_unk"`
	ByteFallback bool            `json:"byte_fallback"`
	IgnoreMerges bool            `json:"ignore_merges"`
	Vocab        map[string]int  `json:"vocab"`
	Merges       json.RawMessage `json:"merges"`
}

// parseBPE reads the model section; only BPE is supported.
func parseBPE(raw json.RawMessage) (*bpeModel, error) {
	typ, err := component(raw)
	if err != nil {
		return nil, err
	}
	if typ != "BPE" {
		if typ == "" {
			return nil, errors.New("missing")
		}
		return nil, unsupported(typ)
	}
	var j bpeJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("BPE: %v", err)
	}
	if j.Dropout != nil && *j.Dropout != 0 {
		return nil, fmt.Errorf("BPE dropout %g is not supported (it makes encoding random)", *j.Dropout)
	}
	m := &bpeModel{vocab: j.Vocab, unk: -1, fuseUnk: j.FuseUnk, byteFallback: j.ByteFallback, ignoreMerges: j.IgnoreMerges}
	if j.Prefix != nil {
		m.prefix = *j.Prefix
	}
	if j.Suffix != nil {
		m.suffix = *j.Suffix
	}
	if j.UnkToken != nil {
		id, ok := m.vocab[*j.UnkToken]
		if !ok {
			return nil, fmt.Errorf("BPE unk_token %q is not in the vocabulary", *j.UnkToken)
		}
		m.unk = id
	}
	for b := range m.byteIDs {
		id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			id = -1
		}
		m.byteIDs[b] = id
	}
	pairs, err := parseMerges(j.Merges)
	if err != nil {
		return nil, err
	}
	m.merges = make(map[[2]int]merge, len(pairs))
	for rank, p := range pairs {
		a, okA := m.vocab[p[0]]
		b, okB := m.vocab[p[1]]
		id, okAB := m.vocab[p[0]+p[1]]
		if !okA || !okB || !okAB {
			return nil, fmt.Errorf("BPE merge %d (%q %q): token not in the vocabulary", rank, p[0], p[1])
		}
		m.merges[[2]int{a, b}] = merge{rank, id} // a repeated pair keeps its last rank, as in tokenizers
	}
	return m, nil
}

// parseMerges reads merges as "a b" strings or ["a", "b"] pairs.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var strs []string
	if err := json.Unmarshal(raw, &strs); err == nil {
		out := make([][2]string, len(strs))
		for i, s := range strs {
			parts := strings.Split(s, " ")
			if len(parts) != 2 {
				return nil, fmt.Errorf("BPE merge %d %q: want two tokens separated by one space", i, s)
			}
			out[i] = [2]string{parts[0], parts[1]}
		}
		return out, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("BPE merges: want \"a b\" strings or [a, b] pairs: %v", err)
	}
	return pairs, nil
}

// encodeWord appends the ids of one pre-tokenized word to ids.
func (m *bpeModel) encodeWord(w string, ids []int) []int {
	if w == "" {
		return ids
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[w]; ok {
			return append(ids, id)
		}
	}
	return append(ids, m.mergeAll(m.symbols(w))...)
}

// symbols returns a word's initial symbols: one per character.
func (m *bpeModel) symbols(w string) []int {
	syms := make([]int, 0, len(w))
	pendingUnk := false
	for i, r := range w {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			size = 1
		}
		s := w[i : i+size]
		if i > 0 {
			s = m.prefix + s
		}
		if i+size == len(w) {
			s += m.suffix
		}
		if id, ok := m.vocab[s]; ok {
			if pendingUnk {
				syms, pendingUnk = append(syms, m.unk), false
			}
			syms = append(syms, id)
			continue
		}
		if m.byteFallback && m.allBytes(s) {
			if pendingUnk {
				syms, pendingUnk = append(syms, m.unk), false
			}
			for j := 0; j < len(s); j++ {
				syms = append(syms, m.byteIDs[s[j]])
			}
			continue
		}
		if m.unk < 0 {
			continue // no unk token: the character is dropped, as tokenizers does
		}
		if pendingUnk && !m.fuseUnk {
			syms = append(syms, m.unk)
		}
		pendingUnk = true
	}
	if pendingUnk {
		syms = append(syms, m.unk)
	}
	return syms
}

// allBytes reports whether every byte of s has a <0xNN> token.
func (m *bpeModel) allBytes(s string) bool {
	for j := 0; j < len(s); j++ {
		if m.byteIDs[s[j]] < 0 {
			return false
		}
	}
	return true
}
