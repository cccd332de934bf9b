package policies

import (
	"math/rand/v2"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(Spec{
		Name: "session-affinity",
		Doc: "rendezvous (highest random weight) hash of the session id (else user, else request id) over backend ids; " +
			"a backend that errors is skipped for cooldown and a removed one is gone, moving only their keys",
		Needs:  []string{"session or user id"},
		Source: "session affinity option of the GIE prefix-cache-aware routing proposal; rendezvous hashing (Thaler & Ravishankar 1998)",
		Params: []ParamSpec{
			{Name: "cooldown", Kind: kDuration, Default: traces.ParamDuration(30 * time.Second), Doc: "how long a backend whose request failed is skipped (0 = never skip)"},
		},
	}, newSessionAffinity)
}

// sessionAffinity routes every Request of one key to the Backend with the
// highest hash of (key, Backend.ID). Because each key ranks all Backends
// independently, losing a Backend moves only the keys it ranked first.
type sessionAffinity struct {
	cooldown time.Duration
	down     []time.Duration // by Backend.Index: skipped until this time
	ids      []idHash        // by Backend.Index
}

type idHash struct {
	id string
	h  uint64
}

func newSessionAffinity(p Params, _ *rand.Rand) (Router, error) {
	cd, err := p.DurationOrZero("cooldown")
	if err != nil {
		return nil, err
	}
	return &sessionAffinity{cooldown: cd}, nil
}

// Name implements Router.
func (r *sessionAffinity) Name() string { return "session-affinity" }

// Pick implements Router.
func (r *sessionAffinity) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	kh := xxhash.Sum64String(req.Key())
	best, bestUp := -1, -1
	var bestScore, bestUpScore uint64
	for i, b := range st.Backends {
		s := mix64(kh ^ r.idHash(b))
		if best < 0 || s > bestScore {
			best, bestScore = i, s
		}
		if !r.isDown(b.Index, st.Now) && (bestUp < 0 || s > bestUpScore) {
			bestUp, bestUpScore = i, s
		}
	}
	ch := Choice{Reason: "affinity"}
	switch {
	case bestUp < 0: // every backend is cooling down: keep affinity
	case bestUp != best:
		best, ch.Reason = bestUp, "failover"
	}
	ch.Backend = st.Backends[best].Index
	return ch, nil
}

// Done implements Feedback: a failed Request puts its Backend in cooldown.
func (r *sessionAffinity) Done(now time.Duration, _ *traces.Request, out Outcome) {
	if !out.Failed || r.cooldown == 0 || out.Backend < 0 {
		return
	}
	for out.Backend >= len(r.down) {
		r.down = append(r.down, 0)
	}
	r.down[out.Backend] = now + r.cooldown
}

func (r *sessionAffinity) isDown(idx int, now time.Duration) bool {
	return idx >= 0 && idx < len(r.down) && now < r.down[idx]
}

// idHash returns the cached hash of b.ID.
func (r *sessionAffinity) idHash(b Backend) uint64 {
	if b.Index < 0 {
		return xxhash.Sum64String(b.ID)
	}
	for b.Index >= len(r.ids) {
		r.ids = append(r.ids, idHash{})
	}
	e := &r.ids[b.Index]
	if e.id != b.ID || e.h == 0 {
		e.id, e.h = b.ID, xxhash.Sum64String(b.ID)|1
	}
	return e.h
}

// mix64 is the splitmix64 finalizer: it spreads a combined key so that
// every (key, backend) pair ranks independently.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
