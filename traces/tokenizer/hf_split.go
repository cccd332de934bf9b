package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// behavior is a SplitDelimiterBehavior of tokenizers: what becomes of
// the matched delimiters when a piece is split.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

func parseBehavior(s string) (behavior, error) {
	switch s {
	case "Removed":
		return removed, nil
	case "Isolated":
		return isolated, nil
	case "MergedWithPrevious":
		return mergedWithPrevious, nil
	case "MergedWithNext":
		return mergedWithNext, nil
	case "Contiguous":
		return contiguous, nil
	}
	return 0, fmt.Errorf("behavior %q: want Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous", s)
}

// matcher finds a literal or a regex.
type matcher struct {
	literal string
	re      *regexp2.Regexp
}

func newMatcher(p pattern) (matcher, error) {
	switch {
	case p.String != nil:
		if *p.String == "" {
			return matcher{}, fmt.Errorf("empty String pattern")
		}
		return matcher{literal: *p.String}, nil
	case p.Regex != nil:
		re, err := compileRegex(*p.Regex)
		return matcher{re: re}, err
	}
	return matcher{}, fmt.Errorf("no String or Regex pattern")
}

// span is a byte range of a piece and whether it is a match.
type span struct {
	start, end int
	match      bool
}

// spans cuts s into the matches of m and the text between them.
func (m matcher) spans(s string) []span {
	var out []span
	prev := 0
	add := func(a, b int) {
		if a > prev {
			out = append(out, span{prev, a, false})
		}
		if b > a {
			out = append(out, span{a, b, true})
		}
		prev = b
	}
	if m.re == nil {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], m.literal)
			if j < 0 {
				break
			}
			add(i+j, i+j+len(m.literal))
			i += j + len(m.literal)
		}
	} else {
		runes, offs := runeOffsets(s)
		mt, _ := m.re.FindRunesMatch(runes)
		for mt != nil {
			add(offs[mt.Index], offs[mt.Index+mt.Length])
			mt, _ = m.re.FindNextMatch(mt)
		}
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// runeOffsets returns the runes of s and the byte offset of each (and of
// the end); an invalid byte is one U+FFFD rune of one byte.
func runeOffsets(s string) ([]rune, []int) {
	runes := make([]rune, 0, len(s))
	offs := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		runes, offs = append(runes, r), append(offs, i)
		i += size
	}
	return runes, append(offs, len(s))
}

// splitBy splits p at the matches of m with behavior b, as tokenizers'
// NormalizedString::split does (invert swaps matches and gaps).
func splitBy(p piece, m matcher, b behavior, invert bool) []piece {
	sp := m.spans(p.text)
	if invert {
		for i := range sp {
			sp[i].match = !sp[i].match
		}
	}
	var merged []span
	switch b {
	case isolated:
		merged = sp
	case removed:
		for _, x := range sp {
			if !x.match {
				merged = append(merged, x)
			}
		}
	case contiguous:
		for _, x := range sp {
			if n := len(merged); n > 0 && x.match && merged[n-1].match {
				merged[n-1].end = x.end
				continue
			}
			merged = append(merged, x)
		}
	case mergedWithPrevious:
		prevMatch := false
		for _, x := range sp {
			if n := len(merged); x.match && !prevMatch && n > 0 {
				merged[n-1].end = x.end
			} else {
				merged = append(merged, span{x.start, x.end, false})
			}
			prevMatch = x.match
		}
	case mergedWithNext:
		prevMatch := false
		for i := len(sp) - 1; i >= 0; i-- {
			x := sp[i]
			if n := len(merged); x.match && !prevMatch && n > 0 {
				merged[n-1].start = x.start
			} else {
				merged = append(merged, span{x.start, x.end, false})
			}
			prevMatch = x.match
		}
		for i, j := 0, len(merged)-1; i < j; i, j = i+1, j-1 {
			merged[i], merged[j] = merged[j], merged[i]
		}
	}
	out := make([]piece, 0, len(merged))
	for _, x := range merged {
		if x.end > x.start {
			out = append(out, piece{p.text[x.start:x.end], p.atStart && x.start == 0})
		}
	}
	return out
}

// splitStage is the Split pre-tokenizer.
type splitStage struct {
	m        matcher
	behavior behavior
	invert   bool
}

func (s splitStage) apply(p piece) []piece { return splitBy(p, s.m, s.behavior, s.invert) }
