package policies

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// qparams adds the parsers the Queues need on top of Params: lists,
// seconds, zero-or-positive durations and per-user weights. Every error
// names the parameter.
type qparams Params

// seconds parses name as seconds: a plain number ("0.010", the specification's
// unit) or a Go duration ("10ms"). The value must be in [min, max].
func (p qparams) seconds(name string, min, max time.Duration) (time.Duration, error) {
	v, err := parseSeconds(Params(p).Text(name))
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %w", name, err)
	}
	if v < min || v > max {
		return 0, fmt.Errorf("parameter %s: %v is outside [%v, %v]", name, v, min, max)
	}
	return v, nil
}

// parseSeconds reads "0.01" as seconds or "10ms" as a Go duration.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || f > 1e9 || f != f {
			return 0, fmt.Errorf("%q is not a duration in [0, 1e9] seconds", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not seconds (0.01) or a duration (10ms)", s)
	}
	return d, nil
}

// intList parses name as a comma-separated list of integers, each in
// [min, max]; an empty value is an empty list.
func (p qparams) intList(name string, min, max int) ([]int, error) {
	v, err := parseIntList(Params(p).Text(name), min, max)
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", name, err)
	}
	return v, nil
}

// parseIntList reads "42,80,167"; "", "none" and "auto" are the empty
// list (the parameter's default behaviour).
func parseIntList(s string, min, max int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" || s == "auto" {
		return nil, nil
	}
	var out []int
	for i, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("item %d %q is not an integer", i+1, f)
		}
		if v < min || v > max {
			return nil, fmt.Errorf("item %d is %d, outside [%d, %d]", i+1, v, min, max)
		}
		out = append(out, v)
	}
	return out, nil
}

// weights parses name as "user=weight,user=weight" with weights > 0.
func (p qparams) weights(name string) (map[string]float64, error) {
	v, err := parseWeights(Params(p).Text(name))
	if err != nil {
		return nil, fmt.Errorf("parameter %s: %w", name, err)
	}
	return v, nil
}

// parseWeights reads "alice=2,bob=0.5"; "" and "none" are no weights.
func parseWeights(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if t := strings.TrimSpace(s); t == "" || t == "none" {
		return out, nil
	}
	for i, f := range strings.Split(s, ",") {
		user, w, ok := strings.Cut(f, "=")
		user = strings.TrimSpace(user)
		if !ok || user == "" {
			return nil, fmt.Errorf("item %d %q is not user=weight", i+1, f)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || v <= 0 || v > 1e9 {
			return nil, fmt.Errorf("item %d: weight %q of user %q is not a number in (0, 1e9]", i+1, w, user)
		}
		if _, dup := out[user]; dup {
			return nil, fmt.Errorf("item %d: user %q given twice", i+1, user)
		}
		out[user] = v
	}
	return out, nil
}
