package client

// JSON grammar (RFC 8259) for scanChunk: each method consumes one token
// or value at s.i, after skipping whitespace, and returns false if the
// input is not valid there (or is declined).

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the next byte (0 at the end).
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object scans {"key": value, ...} of the given kind.
func (s *scanner) object(kind int) bool {
	var seen uint8
	return s.container('{', '}', func() bool {
		key, esc, ok := s.str()
		if !ok || esc || s.peek() != ':' {
			return false // escaped keys are declined
		}
		s.i++
		return s.member(kind, key, &seen)
	})
}

// array scans [value, ...]; elements of kind kindChoice are objects
// (or null), any other kind is skipped.
func (s *scanner) array(kind int) bool {
	return s.container('[', ']', func() bool {
		if kind == kindChoice {
			return s.null() || s.object(kindChoice)
		}
		return s.value()
	})
}

// container scans open, then elements separated by commas, then end; elem
// consumes one element. Nesting deeper than maxScanDepth is declined.
func (s *scanner) container(open, end byte, elem func() bool) bool {
	if s.peek() != open || s.depth >= maxScanDepth {
		return false
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	if s.peek() == end {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case end:
			s.i++
			return true
		default:
			return false
		}
	}
}

// value skips any JSON value.
func (s *scanner) value() bool {
	switch c := s.peek(); {
	case c == '{':
		return s.object(kindSkip)
	case c == '[':
		return s.array(kindSkip)
	case c == '"':
		_, _, ok := s.str()
		return ok
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := s.number()
		return ok
	}
	return false
}

// lit consumes the literal w.
func (s *scanner) lit(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

// null consumes a null if one is next, and reports whether it did.
func (s *scanner) null() bool {
	return s.peek() == 'n' && s.lit("null")
}

// str scans a string and returns its raw contents (between the quotes)
// and whether it holds escapes.
func (s *scanner) str() (raw []byte, esc, ok bool) {
	if s.peek() != '"' {
		return nil, false, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		for s.i < len(s.b) && !strStop[s.b[s.i]] {
			s.i++
		}
		if s.i == len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], esc, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			esc = true
			if !s.escape() {
				return nil, false, false
			}
			continue
		}
		s.i++
	}
	return nil, false, false
}

// escape consumes one backslash escape.
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !isHex(h) {
				return false
			}
		}
		s.i += 6
		return true
	}
	return false
}

// strStop marks the bytes that end a plain run inside a string.
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number scans a number; integral reports a plain integer (no fraction
// or exponent) and digits its digit count.
func (s *scanner) number() (integral bool, digits int, ok bool) {
	if s.peek() == '-' {
		s.i++
	}
	start := s.i
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return false, 0, false
	}
	digits, integral = s.i-start, true
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false, 0, false
		}
		integral = false
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false, 0, false
		}
		integral = false
	}
	return integral, digits, true
}

// digits consumes decimal digits and returns how many.
func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// nonEmptyString accepts a string or null (as encoding/json does for a
// string or *string field) and sets *flag when the string is not empty.
func (s *scanner) nonEmptyString(flag *bool) bool {
	if s.null() {
		return true
	}
	raw, _, ok := s.str()
	if ok && len(raw) > 0 {
		*flag = true // an escape always decodes to at least one rune
	}
	return ok
}

// stringOrNull accepts a string without escapes, or null.
func (s *scanner) stringOrNull() ([]byte, bool) {
	if s.null() {
		return nil, true
	}
	raw, esc, ok := s.str()
	return raw, ok && !esc
}

// intOrNull accepts null or an integer of at most 18 digits into *v.
func (s *scanner) intOrNull(v *int) bool {
	if s.null() {
		return true
	}
	s.ws()
	start := s.i
	integral, digits, ok := s.number()
	if !ok || !integral || digits > 18 {
		return false
	}
	n, neg := 0, false
	for _, c := range s.b[start:s.i] {
		if c == '-' {
			neg = true
			continue
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*v = n
	return true
}
