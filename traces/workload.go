package traces

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParamSpec documents one workload parameter.
type ParamSpec struct {
	// Name is the parameter's key (snake_case).
	Name string
	// Kind is the type of its values.
	Kind ParamKind
	// Default is the value used when the parameter is not given, as
	// text of Kind.
	Default string
	// Doc says what it is, with its unit.
	Doc string
}

// WorkloadSpec documents one workload generator for help text.
type WorkloadSpec struct {
	// Name is what NewWorkload takes.
	Name string
	// Doc says what the generator produces and where its defaults come
	// from.
	Doc string
	// Params are the accepted parameters with their defaults.
	Params []ParamSpec
	// Presets are named sets of parameter values (text of each
	// parameter's Kind), chosen with the parameter preset=NAME;
	// explicitly given parameters win.
	Presets map[string]map[string]string

	build func(p *params, seed uint64) (Source, error)
}

// workloads is the registry, in help order.
var workloads = []WorkloadSpec{mixedSpec(), sharedPrefixSpec(), multiTurnSpec(), multiTenantSpec(), vtcSuiteSpec(),
	prefixPoolSpec(), uniformLengthsSpec(), agenticSpec()}

// Workloads returns the specs of every workload generator.
func Workloads() []WorkloadSpec {
	out := make([]WorkloadSpec, len(workloads))
	copy(out, workloads)
	return out
}

// WorkloadNames returns the generator names.
func WorkloadNames() []string {
	out := make([]string, len(workloads))
	for i, w := range workloads {
		out[i] = w.Name
	}
	return out
}

// NewWorkload returns the named generator with params (missing ones take
// their defaults) seeded by seed: the same name, params and seed give the
// same Requests. Every generator takes requests (how many Requests it
// generates) and rate (its own mean arrival rate in req/s). Unknown
// names, unknown parameters, values of another kind than the declared
// one (a KindInt Value serves a KindFloat parameter) and values out of
// range are errors naming them.
func NewWorkload(name string, params Params, seed uint64) (Source, error) {
	for _, w := range workloads {
		if w.Name == name {
			p, err := newParams(&w, params)
			if err != nil {
				return nil, err
			}
			src, err := w.build(p, seed)
			if err == nil {
				err = p.err
			}
			if err != nil {
				return nil, fmt.Errorf("workload %s: %w", name, err)
			}
			return src, nil
		}
	}
	return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(WorkloadNames(), ", "))
}

// newParams checks names and kinds against the spec and resolves a
// preset.
func newParams(w *WorkloadSpec, given Params) (*params, error) {
	known := map[string]ParamSpec{}
	for _, ps := range w.Params {
		known[ps.Name] = ps
	}
	vals := given.Map()
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		v := vals[k]
		want := KindString
		if k != "preset" {
			ps, ok := known[k]
			if !ok {
				return nil, fmt.Errorf("workload %s: unknown parameter %q (known: %s)", w.Name, k, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
			}
			want = ps.Kind
		}
		if v.kind != want && (want != KindFloat || v.kind != KindInt) {
			return nil, fmt.Errorf("workload %s: parameter %s=%q %s", w.Name, k, v.text, KindMismatch(v.kind, want))
		}
	}
	if pre, ok := vals["preset"]; ok {
		set, ok := w.Presets[pre.text]
		if !ok {
			return nil, fmt.Errorf("workload %s: unknown preset %q (known: %s)", w.Name, pre.text, presetNames(w))
		}
		for _, k := range slices.Sorted(maps.Keys(set)) {
			text := set[k]
			if _, given := vals[k]; given {
				continue
			}
			v, err := ParseValue(known[k].Kind, text)
			if err != nil {
				return nil, fmt.Errorf("workload %s: preset %s: parameter %s: %w", w.Name, pre.text, k, err)
			}
			vals[k] = v
		}
		delete(vals, "preset")
	}
	return &params{w: w, known: known, vals: vals}, nil
}

// presetNames lists w's presets in order ("none" without any).
func presetNames(w *WorkloadSpec) string {
	if len(w.Presets) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(w.Presets)), ", ")
}
