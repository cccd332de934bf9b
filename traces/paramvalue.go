package traces

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParamKind is the type of a workload parameter's value.
type ParamKind uint8

// The kinds of workload parameters.
const (
	// KindInt is a whole number ("300").
	KindInt ParamKind = iota + 1
	// KindFloat is a number ("0.5", "6"); a KindInt Value is accepted too.
	KindFloat
	// KindDuration is a Go duration ("8s", "500ms").
	KindDuration
	// KindString is any text ("sglang").
	KindString
	// KindBool is true or false.
	KindBool
)

// String names the kind: "int", "float", "duration", "string" or
// "bool".
func (k ParamKind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindDuration:
		return "duration"
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	}
	return "unset"
}

// a names the kind with its article ("an int", "a float"), for errors.
func (k ParamKind) a() string {
	if k == KindInt || k == 0 {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// KindMismatch is the error of a value of kind got given where want is
// declared: "is a string value, want an int".
func KindMismatch(got, want ParamKind) string {
	return fmt.Sprintf("is %s value, want %s", got.a(), want.a())
}

// example is a value of kind, for errors.
func (k ParamKind) example() string {
	switch k {
	case KindInt:
		return "a whole number such as 300"
	case KindFloat:
		return "a number such as 0.5"
	case KindDuration:
		return "a duration such as 10s"
	case KindBool:
		return "true or false"
	}
	return "text"
}

// Value is one typed workload parameter value. The zero Value is unset.
// Build one with ParamInt, ParamFloat, ParamDuration, ParamString or
// ParamBool, or from text with ParseParam.
type Value struct {
	kind ParamKind
	// text is the value as written: the command-line text, or the
	// canonical form of a Value built in Go. Results headers record it.
	text string
	i    int
	f    float64
	d    time.Duration
	b    bool
}

// ParamInt is the KindInt Value n.
func ParamInt(n int) Value { return Value{kind: KindInt, text: strconv.Itoa(n), i: n, f: float64(n)} }

// ParamFloat is the KindFloat Value f.
func ParamFloat(f float64) Value {
	return Value{kind: KindFloat, text: strconv.FormatFloat(f, 'g', -1, 64), f: f}
}

// ParamDuration is the KindDuration Value d.
func ParamDuration(d time.Duration) Value { return Value{kind: KindDuration, text: d.String(), d: d} }

// ParamString is the KindString Value s.
func ParamString(s string) Value { return Value{kind: KindString, text: s} }

// ParamBool is the KindBool Value b.
func ParamBool(b bool) Value { return Value{kind: KindBool, text: strconv.FormatBool(b), b: b} }

// Kind is the Value's kind (0 for the zero Value).
func (v Value) Kind() ParamKind { return v.kind }

// String is the Value as text: as written when it was parsed, else its
// canonical form ("300", "0.5", "8s", "true").
func (v Value) String() string { return v.text }

// ParseValue reads text as a Value of kind; the error says the kind
// wanted, with an example.
func ParseValue(kind ParamKind, text string) (Value, error) {
	v := Value{kind: kind, text: text}
	var err error
	switch kind {
	case KindInt:
		v.i, err = strconv.Atoi(text)
		v.f = float64(v.i)
	case KindFloat:
		v.f, err = strconv.ParseFloat(text, 64)
	case KindDuration:
		v.d, err = time.ParseDuration(text)
	case KindBool:
		v.b, err = strconv.ParseBool(text)
	case KindString:
	default:
		err = fmt.Errorf("unknown kind %d", kind)
	}
	if err != nil {
		return Value{}, fmt.Errorf("%q is not %s (want %s)", text, kind.a(), kind.example())
	}
	return v, nil
}

// Param is one named workload parameter.
type Param struct {
	Name  string
	Value Value
}

// Params are a workload generator's parameters in the order given; of
// several with one name the last wins. Parameters not given take the
// generator's defaults (WorkloadSpec.Params). In JSON (the results
// header) Params are the list of "name=value" texts in order.
type Params []Param

// Lookup returns the value of name (the last one given).
func (ps Params) Lookup(name string) (Value, bool) {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].Name == name {
			return ps[i].Value, true
		}
	}
	return Value{}, false
}

// With returns a copy of ps with name set to v after the others.
func (ps Params) With(name string, v Value) Params {
	return append(slices.Clone(ps), Param{Name: name, Value: v})
}

// Strings returns ps as "name=value" texts, in order.
func (ps Params) Strings() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name + "=" + p.Value.text
	}
	return out
}

// String writes ps as fmt writes a list of texts: "[name=value ...]".
func (ps Params) String() string { return "[" + strings.Join(ps.Strings(), " ") + "]" }

// Map returns the effective value of each name given.
func (ps Params) Map() map[string]Value {
	out := make(map[string]Value, len(ps))
	for _, p := range ps {
		out[p.Name] = p.Value
	}
	return out
}

// SortedStrings returns the effective parameters as "name=value" texts
// sorted by name, one per name.
func (ps Params) SortedStrings() []string {
	m := ps.Map()
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k].text)
	}
	return out
}

// MarshalJSON writes ps as a list of "name=value" texts.
func (ps Params) MarshalJSON() ([]byte, error) {
	if ps == nil {
		return []byte("null"), nil
	}
	return json.Marshal(ps.Strings())
}

// UnmarshalJSON reads a list of "name=value" texts, as a results header
// records them, with ParseParams.
func (ps *Params) UnmarshalJSON(b []byte) error {
	p, err := UnmarshalPairs(b, ParseParams)
	if err != nil {
		return err
	}
	*ps = p
	return nil
}

// UnmarshalPairs reads a JSON list of "name=value" texts and parses them
// with parse; JSON null gives nil Params.
func UnmarshalPairs(b []byte, parse func(pairs []string) (Params, error)) (Params, error) {
	var pairs []string
	if err := json.Unmarshal(b, &pairs); err != nil {
		return nil, err
	}
	if pairs == nil {
		return nil, nil
	}
	return parse(pairs)
}

// ParamKindOf returns the kind of the workload parameter name as the
// generators declare it (every generator declaring name gives it one
// kind; "preset" is a KindString).
func ParamKindOf(name string) (ParamKind, bool) {
	if name == "preset" {
		return KindString, true
	}
	for _, w := range workloads {
		for _, ps := range w.Params {
			if ps.Name == name {
				return ps.Kind, true
			}
		}
	}
	return 0, false
}

// paramNames lists every declared workload parameter name, sorted.
func paramNames() []string {
	seen := map[string]bool{"preset": true}
	for _, w := range workloads {
		for _, ps := range w.Params {
			seen[ps.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// ParseParam reads one "name=value" text (a -p flag) into a Param of the
// kind the generators declare for name. An unknown name, a missing =
// and a value not of the kind are errors naming the parameter and the
// kind expected.
func ParseParam(pair string) (Param, error) {
	name, text, ok := strings.Cut(pair, "=")
	if !ok || name == "" {
		return Param{}, fmt.Errorf("%q: want key=value", pair)
	}
	kind, ok := ParamKindOf(name)
	if !ok {
		return Param{}, fmt.Errorf("unknown parameter %q (known: %s)", name, strings.Join(paramNames(), ", "))
	}
	v, err := ParseValue(kind, text)
	if err != nil {
		return Param{}, fmt.Errorf("parameter %s: %w", name, err)
	}
	return Param{Name: name, Value: v}, nil
}

// ParseParams reads "name=value" texts with ParseParam, in order.
func ParseParams(pairs []string) (Params, error) {
	out := make(Params, 0, len(pairs))
	for _, pair := range pairs {
		p, err := ParseParam(pair)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
