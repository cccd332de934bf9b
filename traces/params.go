package traces

import (
	"fmt"
	"time"
)

// params reads a workload's typed parameter values, falling back to
// defaults; the first bad value is kept in err (one clear message naming
// it).
type params struct {
	w     *WorkloadSpec
	known map[string]ParamSpec
	vals  map[string]Value
	err   error
}

// value returns the value of name: given, else its default (read from the
// declaration's text of its Kind; a bad default is an error).
func (p *params) value(name string) Value {
	if v, ok := p.vals[name]; ok {
		return v
	}
	ps := p.known[name]
	v, err := ParseValue(ps.Kind, ps.Default)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("default of parameter %s: %w", name, err)
	}
	return v
}

// raw returns the value of name as text, given or default.
func (p *params) raw(name string) string { return p.value(name).text }

// fail records the first error.
func (p *params) fail(name, want string) {
	if p.err == nil {
		p.err = fmt.Errorf("parameter %s=%q: want %s", name, p.raw(name), want)
	}
}

// whole returns name as an integer, ok false (and the error recorded
// with want) when it is of another kind.
func (p *params) whole(name, want string) (int, bool) {
	v := p.value(name)
	if v.kind != KindInt {
		p.fail(name, want)
		return 0, false
	}
	return v.i, true
}

// number returns name as a float (a KindInt value converts), ok false
// (and the error recorded with want) when it is of another kind.
func (p *params) number(name, want string) (float64, bool) {
	v := p.value(name)
	if v.kind != KindFloat && v.kind != KindInt {
		p.fail(name, want)
		return 0, false
	}
	return v.f, true
}

// int returns name as an integer of at least lo.
func (p *params) int(name string, lo int) int {
	want := fmt.Sprintf("an integer >= %d", lo)
	n, ok := p.whole(name, want)
	if !ok || n < lo {
		p.fail(name, want)
		return lo
	}
	return n
}

// intIn returns name as an integer in [lo, hi].
func (p *params) intIn(name string, lo, hi int) int {
	want := fmt.Sprintf("an integer in [%d, %d]", lo, hi)
	n, ok := p.whole(name, want)
	if !ok || n < lo || n > hi {
		p.fail(name, want)
		return lo
	}
	return n
}

// tokens returns name as a length in tokens, in [lo, MaxTokens].
func (p *params) tokens(name string, lo int) int { return p.intIn(name, lo, MaxTokens) }

// Bounds of generator counts, so a typo cannot exhaust memory: the
// number of users, groups or pool prompts, and the turns of a session
// (every turn carries the whole history, so a session costs memory
// quadratic in its turns).
const (
	maxCount = 1 << 20
	maxTurns = 256
)

// float returns name as a number in [lo, hi].
func (p *params) float(name string, lo, hi float64) float64 {
	want := fmt.Sprintf("a number in [%g, %g]", lo, hi)
	f, ok := p.number(name, want)
	if !ok || !(f >= lo && f <= hi) {
		p.fail(name, want)
		return lo
	}
	return f
}

// positive returns name as a number > 0.
func (p *params) positive(name string) float64 {
	f, ok := p.number(name, "a number > 0")
	if !ok || !(f > 0) || f > 1e9 {
		p.fail(name, "a number > 0")
		return 1
	}
	return f
}

// duration returns name as a non-negative duration ("10s", "500ms").
func (p *params) duration(name string) time.Duration {
	v := p.value(name)
	if v.kind != KindDuration || v.d < 0 {
		p.fail(name, "a duration >= 0 such as 10s")
		return 0
	}
	return v.d
}

// bool returns name as a boolean.
func (p *params) bool(name string) bool {
	v := p.value(name)
	if v.kind != KindBool {
		p.fail(name, "true or false")
	}
	return v.b
}

// rangeOK checks lo <= hi for a pair of parameters.
func (p *params) rangeOK(loName string, lo int, hiName string, hi int) {
	if lo > hi && p.err == nil {
		p.err = fmt.Errorf("parameter %s=%d is above %s=%d", loName, lo, hiName, hi)
	}
}
