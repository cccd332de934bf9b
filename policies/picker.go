package policies

import (
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
)

// pickFunc chooses a position in bs (never empty), drawing ties from rng,
// and says why.
type pickFunc func(bs []Backend, rng *rand.Rand) (pos int, reason string)

// picker is a Router with no state and no parameters of its own: each
// Pick is its pickFunc over the State's Backends.
type picker struct {
	name string
	rng  *rand.Rand
	pick pickFunc
}

// registerPicker registers the Router s describes, built as a picker
// that chooses with pick.
func registerPicker(s Spec, pick pickFunc) {
	RegisterRouter(s, func(_ Params, rng *rand.Rand) (Router, error) {
		return &picker{name: s.Name, rng: rng, pick: pick}, nil
	})
}

// Name implements Router.
func (r *picker) Name() string { return r.name }

// Pick implements Router.
func (r *picker) Pick(_ *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	pos, reason := r.pick(st.Backends, r.rng)
	return Choice{Backend: st.Backends[pos].Index, Reason: reason}, nil
}
