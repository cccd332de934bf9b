package traces

import (
	"fmt"
	"strconv"
	"time"
)

// params reads a workload's parameter values, falling back to defaults;
// the first bad value is kept in err (one clear message naming it).
type params struct {
	w     *WorkloadSpec
	known map[string]ParamSpec
	vals  map[string]string
	err   error
}

// raw returns the value of name, given or default.
func (p *params) raw(name string) string {
	if v, ok := p.vals[name]; ok {
		return v
	}
	return p.known[name].Default
}

// fail records the first error.
func (p *params) fail(name, want string) {
	if p.err == nil {
		p.err = fmt.Errorf("parameter %s=%q: want %s", name, p.raw(name), want)
	}
}

// int returns name as an integer of at least lo.
func (p *params) int(name string, lo int) int {
	n, err := strconv.Atoi(p.raw(name))
	if err != nil || n < lo {
		p.fail(name, fmt.Sprintf("an integer >= %d", lo))
		return lo
	}
	return n
}

// intIn returns name as an integer in [lo, hi].
func (p *params) intIn(name string, lo, hi int) int {
	n, err := strconv.Atoi(p.raw(name))
	if err != nil || n < lo || n > hi {
		p.fail(name, fmt.Sprintf("an integer in [%d, %d]", lo, hi))
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
	f, err := strconv.ParseFloat(p.raw(name), 64)
	if err != nil || !(f >= lo && f <= hi) {
		p.fail(name, fmt.Sprintf("a number in [%g, %g]", lo, hi))
		return lo
	}
	return f
}

// positive returns name as a number > 0.
func (p *params) positive(name string) float64 {
	f, err := strconv.ParseFloat(p.raw(name), 64)
	if err != nil || !(f > 0) || f > 1e9 {
		p.fail(name, "a number > 0")
		return 1
	}
	return f
}

// duration returns name as a non-negative duration ("10s", "500ms").
func (p *params) duration(name string) time.Duration {
	d, err := time.ParseDuration(p.raw(name))
	if err != nil || d < 0 {
		p.fail(name, "a duration >= 0 such as 10s")
		return 0
	}
	return d
}

// bool returns name as a boolean.
func (p *params) bool(name string) bool {
	b, err := strconv.ParseBool(p.raw(name))
	if err != nil {
		p.fail(name, "true or false")
	}
	return b
}

// rangeOK checks lo <= hi for a pair of parameters.
func (p *params) rangeOK(loName string, lo int, hiName string, hi int) {
	if lo > hi && p.err == nil {
		p.err = fmt.Errorf("parameter %s=%d is above %s=%d", loName, lo, hiName, hi)
	}
}
