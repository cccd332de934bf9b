package traces

import "time"

// Int returns the value of a KindInt Value; ok is false for any other
// kind.
func (v Value) Int() (n int, ok bool) { return v.i, v.kind == KindInt }

// Float returns the value of a KindFloat or KindInt Value (an int serves
// a float); ok is false for any other kind.
func (v Value) Float() (f float64, ok bool) {
	return v.f, v.kind == KindFloat || v.kind == KindInt
}

// Duration returns the value of a KindDuration Value; ok is false for any
// other kind.
func (v Value) Duration() (d time.Duration, ok bool) { return v.d, v.kind == KindDuration }

// Bool returns the value of a KindBool Value; ok is false for any other
// kind.
func (v Value) Bool() (b, ok bool) { return v.b, v.kind == KindBool }

// Equal reports whether v and w are of one kind and hold one value,
// however each is written ("2.0" and "2", "60s" and "1m0s"); two
// KindString Values are equal when their texts are.
func (v Value) Equal(w Value) bool {
	if v.kind != w.kind {
		return false
	}
	switch v.kind {
	case KindInt:
		return v.i == w.i
	case KindFloat:
		return v.f == w.f
	case KindDuration:
		return v.d == w.d
	case KindBool:
		return v.b == w.b
	}
	return v.text == w.text
}
