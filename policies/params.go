package policies

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// resolve merges defaults, a preset (parameter "preset"), environment
// variables and explicit parameters, in rising precedence, and rejects
// unknown names. An environment variable's text is read as the kind its
// parameter declares (unless p sets that parameter); a bad one is an
// error naming the parameter and the variable.
func (s *Spec) resolve(p Params) (Params, error) {
	out := Params{}
	known := map[string]bool{"preset": true}
	for _, ps := range s.Params {
		known[ps.Name] = true
		out[ps.Name] = ps.Default
	}
	if v, ok := p["preset"]; ok {
		name := v.String()
		pre, ok := s.Presets[name]
		if !ok {
			return nil, fmt.Errorf("%s %s: unknown preset %q", s.Kind, s.Name, name)
		}
		for k, v := range pre {
			out[k] = v
		}
	}
	for _, ps := range s.Params {
		if ps.Env == "" {
			continue
		}
		if _, explicit := p[ps.Name]; explicit {
			continue
		}
		text, ok := os.LookupEnv(ps.Env)
		if !ok {
			continue
		}
		v, err := traces.ParseValue(ps.Kind, text)
		if err != nil {
			return nil, fmt.Errorf("%s %s: parameter %s: %w (set by environment variable %s)", s.Kind, s.Name, ps.Name, err, ps.Env)
		}
		out[ps.Name] = v
	}
	for k, v := range p {
		if !known[k] {
			return nil, fmt.Errorf("%s %s: unknown parameter %q", s.Kind, s.Name, k)
		}
		if k != "preset" {
			out[k] = v
		}
	}
	return out, nil
}

// blameEnv adds to err, when it names a parameter whose value came from
// an environment variable (p, the explicit parameters, does not set it),
// which variable that was, so a bad value in the environment is found.
func (s *Spec) blameEnv(p Params, err error) error {
	m := paramInErr.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	if _, explicit := p[m[1]]; explicit {
		return err
	}
	for _, ps := range s.Params {
		if ps.Name != m[1] || ps.Env == "" {
			continue
		}
		if _, set := os.LookupEnv(ps.Env); set {
			return fmt.Errorf("%w (set by environment variable %s)", err, ps.Env)
		}
	}
	return err
}

// Int returns parameter name, a KindInt value, checked to be in
// [min, max].
func (p Params) Int(name string, min, max int) (int, error) {
	v, ok := p[name].Int()
	if !ok {
		return 0, errParam(name, "%q is not an integer", p[name])
	}
	return inRange(name, v, min, max)
}

// inRange checks that v, the value of parameter name, is in [min, max].
func inRange(name string, v, min, max int) (int, error) {
	if v < min || v > max {
		return 0, errParam(name, "%d is outside [%d, %d]", v, min, max)
	}
	return v, nil
}

// textInt returns parameter name, a KindString parameter that takes a
// word or a whole number (such as "auto" or 64), as an integer in
// [min, max]: a KindInt value, or text that reads as one.
func (p Params) textInt(name string, min, max int) (int, error) {
	v, ok := p[name].Int()
	if !ok {
		n, err := strconv.Atoi(p[name].String())
		if err != nil {
			return 0, errParam(name, "%q is not an integer", p[name])
		}
		v = n
	}
	return inRange(name, v, min, max)
}

// Float returns parameter name, a KindFloat or KindInt value, checked to
// be in [min, max].
func (p Params) Float(name string, min, max float64) (float64, error) {
	v, ok := p[name].Float()
	if !ok {
		return 0, errParam(name, "%q is not a number", p[name])
	}
	if v < min || v > max {
		return 0, errParam(name, "%g is outside [%g, %g]", v, min, max)
	}
	return v, nil
}

// Duration returns parameter name, a KindDuration value, checked to be
// > 0.
func (p Params) Duration(name string) (time.Duration, error) {
	v, ok := p[name].Duration()
	if !ok || v <= 0 {
		return 0, errParam(name, "%q is not a positive duration like 20m", p[name])
	}
	return v, nil
}

// OneOf returns parameter name's text, checked to be one of allowed.
func (p Params) OneOf(name string, allowed ...string) (string, error) {
	text := p[name].String()
	for _, a := range allowed {
		if text == a {
			return a, nil
		}
	}
	return "", errParam(name, "%q is not one of %v", text, allowed)
}

// Text returns parameter name's text ("" when unset), for a KindString
// parameter the policy reads by its own grammar (a tokenizer name, a
// list "42,80,167").
func (p Params) Text(name string) string { return p[name].String() }

// Bool returns parameter name, a KindBool value.
func (p Params) Bool(name string) (bool, error) {
	v, ok := p[name].Bool()
	if !ok {
		return false, errParam(name, "%q is not true or false", p[name])
	}
	return v, nil
}

// DurationOrZero returns parameter name, a KindDuration value >= 0 (0
// turns the feature it controls off; the integer 0 is taken as 0 too).
func (p Params) DurationOrZero(name string) (time.Duration, error) {
	if n, ok := p[name].Int(); ok && n == 0 {
		return 0, nil
	}
	v, ok := p[name].Duration()
	if !ok || v < 0 {
		return 0, errParam(name, "%q is not a duration like 30s (0 = off)", p[name])
	}
	return v, nil
}

// errParam formats an invalid-value error naming parameter name.
func errParam(name, format string, a ...any) error {
	return fmt.Errorf("parameter %s: "+format, append([]any{name}, a...)...)
}

// spelled is v written as text: the form results headers and the policy
// listing have always shown for a default ("2.0" for the float 2, "60s"
// for a minute). text must read as v; otherwise the result is the zero
// Value, which Specs' consistency test rejects.
func spelled(v traces.Value, text string) traces.Value {
	w, err := traces.ParseValue(v.Kind(), text)
	if err != nil || !w.Equal(v) {
		return traces.Value{}
	}
	return w
}
