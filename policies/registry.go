package policies

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/tracebench/tracebench/traces"
)

// Params are policy parameters by name, as typed values: built in Go
// (traces.ParamInt(16)), from Args (Args.Params) or read from the text of
// flags, a YAML file or environment variables as the kind each parameter
// declares. Constructors read them with Int, Float, Duration, Bool,
// OneOf and Text, which check ranges. In JSON (a results header) Params
// are an object of each value's text.
type Params map[string]traces.Value

// ParamSpec documents one policy parameter.
type ParamSpec struct {
	// Name is the parameter name used in flags and YAML (snake_case).
	Name string
	// Kind is the type of its values: the command line reads
	// --router-param, --queue-param and --filter-param values as it,
	// and typed values given through the Go API must have it (an int
	// serves a float; a KindString parameter, whose text the policy
	// reads by its own grammar such as "auto" or "42,80", takes any).
	Kind traces.ParamKind
	// Default is the default value, of Kind (Specs' consistency test
	// checks it).
	Default traces.Value
	// Env is the environment variable that sets it, if any.
	Env string
	// Doc says what it does, with units.
	Doc string
}

// Short names of the parameter kinds, for the declarations.
const (
	kInt      = traces.KindInt
	kFloat    = traces.KindFloat
	kDuration = traces.KindDuration
	kString   = traces.KindString
	kBool     = traces.KindBool
)

// Kind is what a registered policy is: a Router, a Queue or a filter.
type Kind string

// The kinds of registered policies.
const (
	KindRouter Kind = "router"
	KindQueue  Kind = "queue"
	KindFilter Kind = "filter"
)

// Spec describes a registered policy.
type Spec struct {
	// Name is the kebab-case registry name.
	Name string
	// Kind is KindRouter, KindQueue or KindFilter.
	Kind Kind
	// Doc is a one-line rule.
	Doc string
	// Needs lists what the policy reads: "prompt", "scrape", "session", ...;
	// NeedCapacity marks a Queue that only orders the Requests it holds
	// back, so without a Capacity it releases each on arrival.
	Needs []string
	// Source cites where the rule comes from.
	Source string
	// Params lists the parameters with defaults.
	Params []ParamSpec
	// Presets are named parameter sets (e.g. "aibrix-code"), each value
	// of the kind its parameter declares.
	Presets map[string]Params
	// PicksBackends is set on a Queue that chooses the Backend of what it
	// releases itself (multi-bin), so no Router or filter sees those
	// Requests.
	PicksBackends bool
	newRouter     func(Params, *rand.Rand) (Router, error)
	newQueue      func(Params, *rand.Rand) (Queue, error)
	newFilter     func(Params, Router) (Router, error)
}

// NeedCapacity is the Spec.Needs entry of Queues that hold nothing back
// without a Capacity (--backend-capacity or --token-budget): they order
// the Requests waiting for room, and with unlimited room none waits, so
// they act as fcfs.
const NeedCapacity = "capacity"

var (
	registry = map[string]*Spec{}
	// duplicates lists names registered twice (kind/name); the registry
	// consistency test requires it empty.
	duplicates []string
)

// RegisterRouter adds a Router constructor under s.Name. It is called from
// init functions; a duplicate name is a programming error reported by
// Specs' consistency test.
func RegisterRouter(s Spec, f func(Params, *rand.Rand) (Router, error)) {
	s.Kind, s.newRouter = KindRouter, f
	register(&s)
}

// RegisterFilter adds a filter: a constructor that wraps any Router so
// that it picks among the Backends the filter keeps.
func RegisterFilter(s Spec, f func(Params, Router) (Router, error)) {
	s.Kind, s.newFilter = KindFilter, f
	register(&s)
}

// NewFilter wraps inner in the named filter (see NewRouter for params).
func NewFilter(name string, p Params, inner Router) (Router, error) {
	return build(KindFilter, name, p, func(s *Spec, full Params) (Router, error) { return s.newFilter(full, inner) })
}

// RegisterQueue adds a Queue constructor under s.Name.
func RegisterQueue(s Spec, f func(Params, *rand.Rand) (Queue, error)) {
	s.Kind, s.newQueue = KindQueue, f
	register(&s)
}

func register(s *Spec) {
	key := string(s.Kind) + "/" + s.Name
	if _, dup := registry[key]; dup {
		duplicates = append(duplicates, key)
	}
	registry[key] = s
}

// Specs returns every registered policy, routers first, by name.
func Specs() []Spec {
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, *s)
	}
	rank := map[Kind]int{KindRouter: 0, KindFilter: 1, KindQueue: 2}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return rank[out[i].Kind] < rank[out[j].Kind]
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns the registered names of one kind.
func Names(kind Kind) []string {
	var out []string
	for _, s := range Specs() {
		if s.Kind == kind {
			out = append(out, s.Name)
		}
	}
	return out
}

// Lookup returns the Spec of a policy of kind by name.
func Lookup(kind Kind, name string) (*Spec, error) {
	s, ok := registry[string(kind)+"/"+name]
	if !ok {
		return nil, fmt.Errorf("unknown %s %q (known: %s)", kind, name, strings.Join(Names(kind), ", "))
	}
	return s, nil
}

// NewRouter builds the named Router. Parameters not given take their
// defaults (after environment variables); unknown parameter names and
// invalid values are errors naming the parameter.
func NewRouter(name string, p Params, rng *rand.Rand) (Router, error) {
	return build(KindRouter, name, p, func(s *Spec, full Params) (Router, error) { return s.newRouter(full, rng) })
}

// NewQueue builds the named Queue (see NewRouter).
func NewQueue(name string, p Params, rng *rand.Rand) (Queue, error) {
	return build(KindQueue, name, p, func(s *Spec, full Params) (Queue, error) { return s.newQueue(full, rng) })
}

// Resolve returns the parameters the named policy of kind runs with for the given ones: every parameter of its Spec with
// its effective value (the default, overridden in turn by the preset
// p["preset"] names, the environment variables and p), plus "preset"
// when p names one. Unknown names are errors; values are checked by
// NewRouter and NewQueue, not here.
func Resolve(kind Kind, name string, p Params) (Params, error) {
	_, full, err := lookupResolved(kind, name, p)
	if err != nil {
		return nil, err
	}
	if pre, ok := p["preset"]; ok {
		full["preset"] = traces.ParamString(pre.String())
	}
	return full, nil
}
