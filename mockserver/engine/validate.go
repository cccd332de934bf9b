package engine

import (
	"fmt"
	"time"
)

// Prefixes of the validation errors: the engine's configuration and its
// latency model.
const (
	engineConfig = "engine config"
	latencyModel = "latency model"
)

// atLeast reports a field below its least value as "WHAT: FIELD V: want
// ≥ MIN"; nil when v ≥ min. MIN is a plain number (nanoseconds for a
// duration), so a duration's least value is best 0.
func atLeast[T int | time.Duration](what, field string, v, min T) error {
	if v >= min {
		return nil
	}
	return fmt.Errorf("%s: %s %v: want ≥ %d", what, field, v, min)
}

// inUnit reports a field outside [0, 1], NaN included, as "WHAT: FIELD
// V: want in [0, 1]"; nil when 0 ≤ v ≤ 1.
func inUnit(what, field string, v float64) error {
	if v >= 0 && v <= 1 {
		return nil
	}
	return fmt.Errorf("%s: %s %g: want in [0, 1]", what, field, v)
}

// oneOf reports a field that is neither a nor b as `WHAT: FIELD "V": want
// "A" or "B"`; nil when it is one of them.
func oneOf(what, field, v, a, b string) error {
	if v == a || v == b {
		return nil
	}
	return fmt.Errorf("%s: %s %q: want %q or %q", what, field, v, a, b)
}
