package policies

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tracebench/tracebench/traces"
)

// Args are typed parameters given for a policy, in the order given; of
// several with one name the last wins. Build them in Go as
// Args{{Name: "block_size", Value: traces.ParamInt(16)}}, or from
// "name=value" text with ParseArgs. In JSON (the results header) Args
// are the list of "name=value" texts in order.
type Args []traces.Param

// Lookup returns the value of name (the last one given).
func (a Args) Lookup(name string) (traces.Value, bool) { return traces.Params(a).Lookup(name) }

// With returns a copy of a with name set to v after the others.
func (a Args) With(name string, v traces.Value) Args { return Args(traces.Params(a).With(name, v)) }

// Strings returns a as "name=value" texts, in order.
func (a Args) Strings() []string { return traces.Params(a).Strings() }

// String writes a as fmt writes a list of texts: "[name=value ...]".
func (a Args) String() string { return traces.Params(a).String() }

// MarshalJSON writes a as a list of "name=value" texts.
func (a Args) MarshalJSON() ([]byte, error) { return traces.Params(a).MarshalJSON() }

// UnmarshalJSON reads a list of "name=value" texts, as a results header
// records them: each value as the kind any registered policy declares
// for its name (see ParseParam), a name none declares as text.
func (a *Args) UnmarshalJSON(b []byte) error {
	p, err := traces.UnmarshalPairs(b, parseArgs)
	if err != nil {
		return err
	}
	*a = Args(p)
	return nil
}

// parseArgs reads "name=value" texts, each value as the kind any
// registered policy declares for its name, a name none declares as text.
func parseArgs(pairs []string) (traces.Params, error) {
	out := make(traces.Params, 0, len(pairs))
	for _, pair := range pairs {
		name, text, err := cutPair(pair)
		if err != nil {
			return nil, err
		}
		v, err := readAs(declaredKinds("", name), text)
		if err != nil {
			v = traces.ParamString(text)
		}
		out = append(out, traces.Param{Name: name, Value: v})
	}
	return out, nil
}

// declaredKinds are the kinds the registered policies of kind ("": any)
// declare for the parameter name, most specific first: bool, int, float,
// duration, string ("preset" is a string).
func declaredKinds(kind Kind, name string) []traces.ParamKind {
	seen := map[traces.ParamKind]bool{}
	if name == "preset" {
		seen[traces.KindString] = true
	}
	for _, s := range registry {
		if kind != "" && s.Kind != kind {
			continue
		}
		for _, ps := range s.Params {
			if ps.Name == name {
				seen[ps.Kind] = true
			}
		}
	}
	var out []traces.ParamKind
	for _, k := range []traces.ParamKind{traces.KindBool, traces.KindInt, traces.KindFloat, traces.KindDuration, traces.KindString} {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// readAs reads text as the first of kinds it is a value of.
func readAs(kinds []traces.ParamKind, text string) (traces.Value, error) {
	var first error
	for _, k := range kinds {
		v, err := traces.ParseValue(k, text)
		if err == nil {
			return v, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("no kind declared")
	}
	return traces.Value{}, first
}

// ParseParam reads one "name=value" text given for a policy of kind (the
// --router-param, --queue-param and --filter-param flags) as the kind the
// registered policies of that kind declare for name. Where two of them
// declare name with different kinds (block_size: an int in one router,
// "auto" or a number in another), the value is read as the first of
// them it is: bool, int, float, duration, string. An unknown name, a
// missing = and a value of none of the kinds are errors naming the
// parameter and the kind wanted.
func ParseParam(kind Kind, pair string) (traces.Param, error) {
	name, text, err := cutPair(pair)
	if err != nil {
		return traces.Param{}, err
	}
	kinds := declaredKinds(kind, name)
	if len(kinds) == 0 {
		return traces.Param{}, fmt.Errorf("unknown parameter %q: no %s takes it (known: %s)", name, kind, strings.Join(paramNames(kind), ", "))
	}
	v, err := readAs(kinds, text)
	if err != nil {
		return traces.Param{}, fmt.Errorf("parameter %s: %w", name, err)
	}
	return traces.Param{Name: name, Value: v}, nil
}

// cutPair splits a "name=value" text; a missing = or name is an error.
func cutPair(pair string) (name, text string, err error) {
	name, text, ok := strings.Cut(pair, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("%q: want key=value", pair)
	}
	return name, text, nil
}

// ParseArgs reads "name=value" texts with ParseParam, in order.
func ParseArgs(kind Kind, pairs []string) (Args, error) {
	out := make(Args, 0, len(pairs))
	for _, pair := range pairs {
		p, err := ParseParam(kind, pair)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// paramNames lists the parameter names the policies of kind declare,
// sorted, with preset.
func paramNames(kind Kind) []string {
	seen := map[string]bool{"preset": true}
	for _, s := range registry {
		if s.Kind == kind {
			for _, ps := range s.Params {
				seen[ps.Name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Params returns a as the Params the named policy of kind is built with,
// the values copied as given: each must have the kind the policy
// declares for its name (an int serves a float; a KindString parameter
// takes any value, which the policy reads as its text).
// Names the policy does not declare are kept, for NewRouter, NewQueue,
// NewFilter and Resolve to reject.
func (a Args) Params(kind Kind, name string) (Params, error) {
	s, err := Lookup(kind, name)
	if err != nil {
		return nil, err
	}
	declared := map[string]traces.ParamKind{"preset": traces.KindString}
	for _, ps := range s.Params {
		declared[ps.Name] = ps.Kind
	}
	out := Params{}
	for _, p := range a {
		want, ok := declared[p.Name]
		got := p.Value.Kind()
		if ok && got != want && want != traces.KindString && (want != traces.KindFloat || got != traces.KindInt) {
			return nil, fmt.Errorf("%s %s: parameter %s=%q %s", kind, name, p.Name, p.Value, traces.KindMismatch(got, want))
		}
		out[p.Name] = p.Value
	}
	return out, nil
}

// ArgsOf returns the resolved parameters a results header records
// (Header.RouterParams, the text of each value) as Args in the order of
// their sorted "name=value" texts, each value read as the kind the named
// policy of kind declares for it; a name it does not declare, or a value
// not of its kind, is kept as text.
func ArgsOf(kind Kind, name string, texts map[string]string) Args {
	declared := map[string]traces.ParamKind{}
	if s, err := Lookup(kind, name); err == nil {
		for _, ps := range s.Params {
			declared[ps.Name] = ps.Kind
		}
	}
	keys := slices.SortedFunc(maps.Keys(texts), func(a, b string) int {
		return strings.Compare(a+"="+texts[a], b+"="+texts[b])
	})
	out := make(Args, 0, len(texts))
	for _, k := range keys {
		v := traces.ParamString(texts[k])
		if want, ok := declared[k]; ok {
			if typed, err := traces.ParseValue(want, texts[k]); err == nil {
				v = typed
			}
		}
		out = append(out, traces.Param{Name: k, Value: v})
	}
	return out
}
