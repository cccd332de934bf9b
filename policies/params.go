package policies

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// resolve merges defaults, a preset (parameter "preset"), environment
// variables and explicit parameters, in rising precedence, and rejects
// unknown names.
func (s *Spec) resolve(p Params) (Params, error) {
	out := Params{}
	known := map[string]bool{"preset": true}
	for _, ps := range s.Params {
		known[ps.Name] = true
		out[ps.Name] = ps.Default
	}
	if name, ok := p["preset"]; ok {
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
		if v, ok := os.LookupEnv(ps.Env); ok {
			out[ps.Name] = v
		}
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

// Int parses parameter name as an integer in [min, max].
func (p Params) Int(name string, min, max int) (int, error) {
	v, err := strconv.Atoi(p[name])
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %q is not an integer", name, p[name])
	}
	if v < min || v > max {
		return 0, fmt.Errorf("parameter %s: %d is outside [%d, %d]", name, v, min, max)
	}
	return v, nil
}

// Float parses parameter name as a float in [min, max].
func (p Params) Float(name string, min, max float64) (float64, error) {
	v, err := strconv.ParseFloat(p[name], 64)
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %q is not a number", name, p[name])
	}
	if v < min || v > max {
		return 0, fmt.Errorf("parameter %s: %g is outside [%g, %g]", name, v, min, max)
	}
	return v, nil
}

// Duration parses parameter name as a Go duration (e.g. "20m") > 0.
func (p Params) Duration(name string) (time.Duration, error) {
	v, err := time.ParseDuration(p[name])
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("parameter %s: %q is not a positive duration like 20m", name, p[name])
	}
	return v, nil
}

// OneOf checks that parameter name is one of the allowed values.
func (p Params) OneOf(name string, allowed ...string) (string, error) {
	for _, a := range allowed {
		if p[name] == a {
			return a, nil
		}
	}
	return "", fmt.Errorf("parameter %s: %q is not one of %v", name, p[name], allowed)
}

// Bool parses parameter name as true or false.
func (p Params) Bool(name string) (bool, error) {
	v, err := strconv.ParseBool(p[name])
	if err != nil {
		return false, fmt.Errorf("parameter %s: %q is not true or false", name, p[name])
	}
	return v, nil
}

// DurationOrZero parses parameter name as a Go duration >= 0 ("0" turns
// the feature it controls off).
func (p Params) DurationOrZero(name string) (time.Duration, error) {
	if p[name] == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(p[name])
	if err != nil || v < 0 {
		return 0, fmt.Errorf("parameter %s: %q is not a duration like 30s (0 = off)", name, p[name])
	}
	return v, nil
}

// errParam formats an invalid-value error naming parameter name.
func errParam(name, format string, a ...any) error {
	return fmt.Errorf("parameter %s: "+format, append([]any{name}, a...)...)
}
