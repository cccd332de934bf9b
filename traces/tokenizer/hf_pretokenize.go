package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// piece is a pre-tokenized piece of text; atStart reports it begins at
// the start of the encoded text (Metaspace's prepend_scheme "first").
type piece struct {
	text    string
	atStart bool
}

// preTokenizer splits normalized text into the words the model encodes
// (tokenizers/src/pre_tokenizers).
type preTokenizer interface {
	split(s string, atStart bool) []string
}

// stage is one pre-tokenizer of a sequence: it maps a piece to pieces.
type stage interface {
	apply(p piece) []piece
}

// preSeq applies its stages in order (one stage for a single
// pre-tokenizer, none for null).
type preSeq []stage

func (ps preSeq) split(s string, atStart bool) []string {
	pieces := []piece{{s, atStart}}
	for _, st := range ps {
		var next []piece
		for _, p := range pieces {
			next = append(next, st.apply(p)...)
		}
		pieces = next
	}
	out := make([]string, 0, len(pieces))
	for _, p := range pieces {
		if p.text != "" {
			out = append(out, p.text)
		}
	}
	return out
}

// preJSON holds the fields of every supported pre-tokenizer.
type preJSON struct {
	Type            string            `json:"type"`
	PreTokenizers   []json.RawMessage `json:"pretokenizers"`
	AddPrefixSpace  bool              `json:"add_prefix_space"`
	UseRegex        *bool             `json:"use_regex"`
	Pattern         pattern           `json:"pattern"`
	Behavior        string            `json:"behavior"`
	Invert          bool              `json:"invert"`
	Replacement     string            `json:"replacement"`
	PrependScheme   string            `json:"prepend_scheme"`
	Split           *bool             `json:"split"`
	IndividualDigit bool              `json:"individual_digits"`
}

// parsePreTokenizer reads the pre_tokenizer section (null: the text is
// one word).
func parsePreTokenizer(raw json.RawMessage) (preTokenizer, error) {
	stages, err := parseStages(raw)
	return preSeq(stages), err
}

func parseStages(raw json.RawMessage) ([]stage, error) {
	typ, err := component(raw)
	if err != nil || typ == "" {
		return nil, err
	}
	var j preJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("%s: %v", typ, err)
	}
	switch typ {
	case "Sequence":
		var out []stage
		for _, r := range j.PreTokenizers {
			s, err := parseStages(r)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case "ByteLevel":
		useRegex := j.UseRegex == nil || *j.UseRegex
		return []stage{byteLevel{addPrefixSpace: j.AddPrefixSpace, useRegex: useRegex}}, nil
	case "Split":
		b, err := parseBehavior(j.Behavior)
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		m, err := newMatcher(j.Pattern)
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		return []stage{splitStage{m: m, behavior: b, invert: j.Invert}}, nil
	case "Metaspace":
		return parseMetaspace(j)
	case "Digits":
		return []stage{digits{individual: j.IndividualDigit}}, nil
	}
	return nil, unsupported(typ)
}

// gpt2Pattern is the ByteLevel pre-tokenizer's split (GPT-2's encoder.py
// pattern, as tokenizers' byte_level.rs has it).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

var gpt2Matcher = mustMatcher(gpt2Pattern)

func mustMatcher(expr string) matcher {
	re, err := compileRegex(expr)
	if err != nil {
		panic(err) // a constant pattern
	}
	return matcher{re: re}
}

// byteLevel maps every byte to a printable character (GPT-2's
// bytes_to_unicode), after splitting by gpt2Pattern when useRegex, and
// prepends a space when addPrefixSpace and the piece does not start
// with one.
type byteLevel struct{ addPrefixSpace, useRegex bool }

func (b byteLevel) apply(p piece) []piece {
	s := p.text
	if b.addPrefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	parts := []piece{{s, p.atStart}}
	if b.useRegex {
		parts = splitBy(piece{s, p.atStart}, gpt2Matcher, isolated, false)
	}
	for i := range parts {
		parts[i].text = byteLevelString(parts[i].text)
	}
	return parts
}

// byteToRune is GPT-2's bytes_to_unicode: printable Latin-1 bytes map to
// themselves, the other 68 to U+0100 onwards in byte order.
var byteToRune = func() (t [256]rune) {
	n := 0
	for b := 0; b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE && b <= 0xFF {
			t[b] = rune(b)
		} else {
			t[b] = rune(256 + n)
			n++
		}
	}
	return t
}()

func byteLevelString(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		sb.WriteRune(byteToRune[s[i]])
	}
	return sb.String()
}

// metaspace replaces spaces by the replacement character, prepends one
// (prepend_scheme always, or first for the piece at the text's start)
// and, when split, cuts before every replacement character.
type metaspace struct {
	repl    string
	scheme  string
	doSplit bool
}

func parseMetaspace(j preJSON) ([]stage, error) {
	m := metaspace{repl: j.Replacement, scheme: j.PrependScheme, doSplit: j.Split == nil || *j.Split}
	if m.repl == "" {
		m.repl = "▁"
	}
	switch m.scheme {
	case "":
		m.scheme = "always"
		if !j.AddPrefixSpace && j.PrependScheme == "" {
			// Older files spell the scheme as add_prefix_space.
			m.scheme = "never"
		}
	case "always", "first", "never":
	default:
		return nil, fmt.Errorf("Metaspace prepend_scheme %q: want always, first or never", m.scheme)
	}
	return []stage{m}, nil
}

func (m metaspace) apply(p piece) []piece {
	s := strings.ReplaceAll(p.text, " ", m.repl)
	if !strings.HasPrefix(s, m.repl) && (m.scheme == "always" || m.scheme == "first" && p.atStart) {
		s = m.repl + s
	}
	if !m.doSplit {
		return []piece{{s, p.atStart}}
	}
	return splitBy(piece{s, p.atStart}, matcher{literal: m.repl}, mergedWithNext, false)
}

// digits isolates runs of digits, or each digit (Digits).
type digits struct{ individual bool }

func (d digits) apply(p piece) []piece {
	var out []piece
	start := 0
	prevDigit := false
	for i, r := range p.text {
		isD := unicode.IsNumber(r)
		if i > start && (isD != prevDigit || isD && d.individual) {
			out = append(out, piece{p.text[start:i], p.atStart && start == 0})
			start = i
		}
		prevDigit = isD
	}
	return append(out, piece{p.text[start:], p.atStart && start == 0})
}
