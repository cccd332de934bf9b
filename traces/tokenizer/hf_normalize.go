package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenization (tokenizers/src/normalizers).
type normalizer interface {
	normalize(s string) string
}

// normSeq applies normalizers in order; the empty sequence is the
// identity (no normalizer).
type normSeq []normalizer

func (n normSeq) normalize(s string) string {
	for _, x := range n {
		s = x.normalize(s)
	}
	return s
}

type normForm struct{ f norm.Form }

func (n normForm) normalize(s string) string { return n.f.String(s) }

type lowercase struct{}

func (lowercase) normalize(s string) string { return strings.ToLower(s) }

// prepend adds its text before non-empty text (Prepend normalizer).
type prepend struct{ text string }

func (p prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return p.text + s
}

// replace substitutes every match of a literal or regex (Replace).
type replace struct {
	literal string
	re      *regexp2.Regexp
	content string
}

func (r replace) normalize(s string) string {
	if r.re == nil {
		return strings.ReplaceAll(s, r.literal, r.content)
	}
	out, err := r.re.Replace(s, r.content, -1, -1)
	if err != nil {
		return s
	}
	return out
}

// strip removes leading and/or trailing white space (Strip).
type strip struct{ left, right bool }

func (st strip) normalize(s string) string {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// normJSON holds the fields of every supported normalizer.
type normJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"`
	Prepend     string            `json:"prepend"`
	Pattern     pattern           `json:"pattern"`
	Content     string            `json:"content"`
	StripLeft   bool              `json:"strip_left"`
	StripRight  bool              `json:"strip_right"`
}

// parseNormalizer reads the normalizer section (null: none).
func parseNormalizer(raw json.RawMessage) (normalizer, error) {
	typ, err := component(raw)
	if err != nil || typ == "" {
		return normSeq(nil), err
	}
	var j normJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("%s: %v", typ, err)
	}
	switch typ {
	case "Sequence":
		var seq normSeq
		for _, r := range j.Normalizers {
			n, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			seq = append(seq, n)
		}
		return seq, nil
	case "NFC":
		return normForm{norm.NFC}, nil
	case "NFD":
		return normForm{norm.NFD}, nil
	case "NFKC":
		return normForm{norm.NFKC}, nil
	case "NFKD":
		return normForm{norm.NFKD}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Prepend":
		return prepend{j.Prepend}, nil
	case "Strip":
		return strip{j.StripLeft, j.StripRight}, nil
	case "Replace":
		r := replace{content: j.Content}
		switch {
		case j.Pattern.String != nil:
			r.literal = *j.Pattern.String
		case j.Pattern.Regex != nil:
			if r.re, err = compileRegex(*j.Pattern.Regex); err != nil {
				return nil, fmt.Errorf("Replace: %w", err)
			}
			r.content = strings.ReplaceAll(r.content, "$", "$$")
		default:
			return nil, fmt.Errorf("Replace: no String or Regex pattern")
		}
		if r.re == nil && r.literal == "" {
			return nil, fmt.Errorf("Replace: empty pattern")
		}
		return r, nil
	}
	return nil, unsupported(typ)
}

// regexTimeout bounds one regex search, so a pathological pattern read
// from a file cannot hang an import (the text after a timed-out search
// is left unsplit).
const regexTimeout = 10 * time.Second

// compileRegex compiles a tokenizer.json regex (Oniguruma syntax in
// tokenizers; regexp2's .NET-compatible syntax covers the lookahead,
// \p{..} classes and (?i:..) groups the published patterns use).
func compileRegex(expr string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(expr, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %v", expr, err)
	}
	re.MatchTimeout = regexTimeout
	return re, nil
}
