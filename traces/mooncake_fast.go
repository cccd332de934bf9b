package traces

import (
	"bytes"
	"strconv"
)

// fastMooncake parses the common shape of a Mooncake line without
// reflection: one object whose keys are exactly timestamp, input_length,
// output_length, hash_ids, session_id or delay, with plain numbers, an
// array of unsigned integers and an unescaped ASCII string. It returns
// false on anything else (other keys, escapes, nulls, malformed input),
// and the caller falls back to encoding/json, which also words the error;
// when it returns true the record equals what encoding/json decodes
// (FuzzMooncakeFast checks this).
func fastMooncake(line []byte) (mooncakeRecord, bool) {
	var rec mooncakeRecord
	p := &scanner{b: line, vals: new(mooncakeValues)}
	if !p.byte('{') {
		return rec, false
	}
	if p.byte('}') {
		return rec, p.end()
	}
	for {
		key, ok := p.plainString()
		if !ok || !p.byte(':') {
			return rec, false
		}
		if !p.value(string(key), &rec) {
			return rec, false
		}
		if p.byte('}') {
			return rec, p.end()
		}
		if !p.byte(',') {
			return rec, false
		}
	}
}

// scanner walks a JSON line.
type scanner struct {
	b    []byte
	i    int
	vals *mooncakeValues
}

// mooncakeValues holds the numbers a record's pointers point at (one
// allocation per record instead of one per field).
type mooncakeValues struct {
	timestamp, delay float64
	input, output    int
}

func (p *scanner) skipWS() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\r' || p.b[p.i] == '\n') {
		p.i++
	}
}

// byte consumes c after white space.
func (p *scanner) byte(c byte) bool {
	p.skipWS()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only white space is left.
func (p *scanner) end() bool {
	p.skipWS()
	return p.i == len(p.b)
}

// value parses the value of key into rec.
func (p *scanner) value(key string, rec *mooncakeRecord) bool {
	switch key {
	case "timestamp":
		return store(p.float, &p.vals.timestamp, &rec.Timestamp)
	case "delay":
		return store(p.float, &p.vals.delay, &rec.Delay)
	case "input_length":
		return store(p.int, &p.vals.input, &rec.InputLength)
	case "output_length":
		return store(p.int, &p.vals.output, &rec.OutputLength)
	case "hash_ids":
		ids, ok := p.uintArray()
		rec.HashIDs = ids
		return ok
	case "session_id":
		s, ok := p.plainString()
		rec.SessionID = append([]byte{'"'}, append(s, '"')...)
		return ok
	}
	return false
}

// store parses a value into *slot and points *field at it (whether or
// not it parsed); it reports whether it parsed.
func store[T any](parse func() (T, bool), slot *T, field **T) bool {
	v, ok := parse()
	*slot, *field = v, slot
	return ok
}

// number returns the next JSON number token, checking its grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; integral reports no
// fraction or exponent.
func (p *scanner) number() (tok []byte, integral, ok bool) {
	p.skipWS()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	if !p.digits(true) {
		return nil, false, false
	}
	integral = true
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		integral = false
		if !p.digits(false) {
			return nil, false, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		integral = false
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits(false) {
			return nil, false, false
		}
	}
	return p.b[start:p.i], integral, true
}

// digits consumes one or more digits; leadingZero forbids "0" followed
// by more digits (JSON's integer part).
func (p *scanner) digits(leadingZero bool) bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if leadingZero && p.i-start > 1 && p.b[start] == '0' {
		return false
	}
	return p.i > start
}

func (p *scanner) float() (float64, bool) {
	tok, _, ok := p.number()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	return f, err == nil
}

func (p *scanner) int() (int, bool) {
	tok, integral, ok := p.number()
	if !ok || !integral {
		return 0, false
	}
	n, err := strconv.Atoi(string(tok))
	return n, err == nil
}

// uintArray parses [n, n, ...] of non-negative integers.
func (p *scanner) uintArray() ([]uint64, bool) {
	if !p.byte('[') {
		return nil, false
	}
	ids := make([]uint64, 0, 1+bytes.Count(p.b[p.i:], []byte{','}))
	if p.byte(']') {
		return ids, true
	}
	for {
		tok, integral, ok := p.number()
		if !ok || !integral || tok[0] == '-' {
			return nil, false
		}
		n, err := strconv.ParseUint(string(tok), 10, 64)
		if err != nil {
			return nil, false
		}
		ids = append(ids, n)
		if p.byte(']') {
			return ids, true
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}

// plainString parses a string of printable ASCII without escapes and
// returns its contents.
func (p *scanner) plainString() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		p.i++
	}
	return nil, false
}
