package policies

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(vtcBasicSpec(), newVTCBasic)
}

// vtcBasicSpec documents vtc-basic. Defaults and environment variables are
// the table of AIBrix's routing algorithms README
// (https://github.com/vllm-project/aibrix/blob/main/pkg/plugins/gateway/algorithms/README.md); jitter is the
// "small random factor" of AIBrix's vtc_basic.go (0.1).
func vtcBasicSpec() Spec {
	env := func(s string) string { return "AIBRIX_ROUTER_VTC_" + s }
	return Spec{
		Name: "vtc-basic",
		Doc: "AIBrix vtc-basic: lowest fairness_weight*|i - min(user tokens/bucket, n-1)| + " +
			"utilization_weight*min(in-flight/max_pod_load, 1) + jitter*U[0,1), bucket = max(min_tokens, (min+max user tokens)/2) " +
			"over a sliding window; users' tokens are counted when their responses complete",
		Needs:  []string{"user id", "in-flight", "completed token counts"},
		Source: "AIBrix vtc-basic (vllm-project/aibrix pkg/plugins/gateway/algorithms/vtc/vtc_basic.go, token_tracker.go; parameters: https://github.com/vllm-project/aibrix/blob/main/pkg/plugins/gateway/algorithms/README.md)",
		Params: []ParamSpec{
			{Name: "time_unit", Kind: kString, Default: traces.ParamString("minutes"), Env: env("TOKEN_TRACKER_TIME_UNIT"), Doc: "unit of window_size: minutes, seconds or milliseconds"},
			{Name: "window_size", Kind: kInt, Default: traces.ParamInt(5), Env: env("TOKEN_TRACKER_WINDOW_SIZE"), Doc: "sliding window length in time_unit over which a user's tokens count"},
			{Name: "min_tokens", Kind: kFloat, Default: traces.ParamFloat(1000), Env: env("TOKEN_TRACKER_MIN_TOKENS"), Doc: "floor of the bucket size and the minimum used while no user has tokens"},
			{Name: "max_tokens", Kind: kFloat, Default: traces.ParamFloat(8000), Env: env("TOKEN_TRACKER_MAX_TOKENS"), Doc: "maximum used while no user has tokens"},
			{Name: "input_token_weight", Kind: kFloat, Default: spelled(traces.ParamFloat(1), "1.0"), Env: env("BASIC_INPUT_TOKEN_WEIGHT"), Doc: "weight of a prompt token in a user's count"},
			{Name: "output_token_weight", Kind: kFloat, Default: spelled(traces.ParamFloat(2), "2.0"), Env: env("BASIC_OUTPUT_TOKEN_WEIGHT"), Doc: "weight of an output token in a user's count"},
			{Name: "max_pod_load", Kind: kFloat, Default: spelled(traces.ParamFloat(100), "100.0"), Env: env("BASIC_MAX_POD_LOAD"), Doc: "in-flight requests at which utilisation reaches 1"},
			{Name: "fairness_weight", Kind: kFloat, Default: spelled(traces.ParamFloat(1), "1.0"), Env: env("BASIC_FAIRNESS_WEIGHT"), Doc: "weight of the fairness score"},
			{Name: "utilization_weight", Kind: kFloat, Default: spelled(traces.ParamFloat(1), "1.0"), Env: env("BASIC_UTILIZATION_WEIGHT"), Doc: "weight of the utilisation score"},
			{Name: "jitter", Kind: kFloat, Default: traces.ParamFloat(0.1), Doc: "scale of the seeded uniform random term added to every score (AIBrix: 0.1; 0 = none)"},
			{Name: "charge", Kind: kString, Default: traces.ParamString("completion"), Doc: "when a user's tokens count: completion (AIBrix: the reported tokens when the response completes) or oracle (input plus the Request's known output length at the pick, the Router form of the vtc-oracle queue)"},
		},
	}
}

// vtcBasic is AIBrix's vtc-basic Router: it maps a user's windowed token
// count onto a position among the Backends (heavier users to higher
// positions) and trades that off against each Backend's load.
type vtcBasic struct {
	rng                   *rand.Rand
	window, res           time.Duration
	minTokens, maxTokens  float64
	wIn, wOut             float64
	maxLoad, wFair, wUtil float64
	jitter                float64
	oracle                bool // charge known tokens at the pick, not at completion
	users                 map[string]*userWindow
	extremaCutoff         int64
	extremaValid          bool
	minSeen, maxSeen      float64
}

// userWindow holds one user's weighted tokens in time buckets of res,
// oldest first, and their sum.
type userWindow struct {
	buckets []tokBucket
	total   float64
}

type tokBucket struct {
	ts     int64
	tokens float64
}

func newVTCBasic(p Params, rng *rand.Rand) (Router, error) {
	r := &vtcBasic{rng: rng, users: map[string]*userWindow{}}
	unit, err := p.OneOf("time_unit", "minutes", "seconds", "milliseconds")
	if err != nil {
		return nil, err
	}
	size, err := p.Int("window_size", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	// AIBrix keys buckets by Unix seconds (milliseconds for that unit).
	per := map[string]time.Duration{"minutes": time.Minute, "seconds": time.Second, "milliseconds": time.Millisecond}[unit]
	r.window, r.res = time.Duration(size)*per, min(per, time.Second)
	for _, f := range []struct {
		name string
		dst  *float64
		lo   float64
	}{{"min_tokens", &r.minTokens, 1}, {"max_tokens", &r.maxTokens, 1},
		{"input_token_weight", &r.wIn, 0}, {"output_token_weight", &r.wOut, 0}, {"max_pod_load", &r.maxLoad, 1e-9},
		{"fairness_weight", &r.wFair, 0}, {"utilization_weight", &r.wUtil, 0}, {"jitter", &r.jitter, 0}} {
		if *f.dst, err = p.Float(f.name, f.lo, 1e15); err != nil {
			return nil, err
		}
	}
	if r.maxTokens < r.minTokens {
		return nil, errParam("max_tokens", "%g is below min_tokens %g", r.maxTokens, r.minTokens)
	}
	charge, err := p.OneOf("charge", "completion", "oracle")
	if err != nil {
		return nil, err
	}
	r.oracle = charge == "oracle"
	return r, nil
}

// Name implements Router.
func (r *vtcBasic) Name() string { return "vtc-basic" }

// Pick implements Router. Requests without a user go to a random Backend,
// as AIBrix does when the request names no user.
func (r *vtcBasic) Pick(req *traces.Request, st State) (Choice, error) {
	n := len(st.Backends)
	if n == 0 {
		return Choice{}, errNoBackends
	}
	if req.User == "" {
		return Choice{Backend: st.Backends[r.rng.IntN(n)].Index, Reason: "no-user"}, nil
	}
	cutoff := r.cutoff(st.Now)
	tokens := r.userTokens(req.User, cutoff)
	lo, hi := r.extrema(cutoff)
	bucket := math.Max(r.minTokens, (lo+hi)/2)
	pos := math.Min(tokens/bucket, float64(n-1))
	best, bestScore := 0, math.Inf(1)
	for i, b := range st.Backends {
		fair := math.Abs(float64(i) - pos)
		util := math.Min(float64(b.InFlight)/r.maxLoad, 1)
		s := r.wFair*fair + r.wUtil*util
		if r.jitter > 0 {
			s += r.jitter * r.rng.Float64()
		}
		if s < bestScore {
			best, bestScore = i, s
		}
	}
	if r.oracle {
		r.charge(st.Now, req.User, float64(max(req.InputTokens, 0))*r.wIn+float64(max(req.OutputTokens, 0))*r.wOut)
	}
	return Choice{Backend: st.Backends[best].Index, Reason: "vtc"}, nil
}

// Done implements Feedback: the user is charged input x weight + output x
// weight for the completed Request (charge=completion; with oracle the
// pick charged it).
func (r *vtcBasic) Done(now time.Duration, req *traces.Request, out Outcome) {
	if req == nil || req.User == "" || r.oracle {
		return
	}
	r.charge(now, req.User, float64(max(out.PromptTokens, 0))*r.wIn+float64(max(out.OutputTokens, 0))*r.wOut)
}

// charge adds weighted tokens to user's window at now.
func (r *vtcBasic) charge(now time.Duration, user string, add float64) {
	if add == 0 {
		return
	}
	u := r.users[user]
	if u == nil {
		u = &userWindow{}
		r.users[user] = u
	}
	u.prune(r.cutoff(now))
	ts := int64(now / r.res)
	if k := len(u.buckets); k > 0 && u.buckets[k-1].ts == ts {
		u.buckets[k-1].tokens += add
	} else {
		u.buckets = append(u.buckets, tokBucket{ts: ts, tokens: add})
	}
	u.total += add
	r.extremaValid = false
}

// cutoff is the oldest bucket timestamp inside the window ending at now.
func (r *vtcBasic) cutoff(now time.Duration) int64 {
	d := now - r.window
	ts := int64(d / r.res)
	if d < 0 && d%r.res != 0 {
		ts-- // floor for negative offsets
	}
	return ts
}

// userTokens returns the user's weighted tokens inside the window.
func (r *vtcBasic) userTokens(user string, cutoff int64) float64 {
	u := r.users[user]
	if u == nil {
		return 0
	}
	if u.prune(cutoff) {
		r.extremaValid = false
	}
	return u.total
}

// extrema returns the least and greatest windowed token counts over users
// with tokens, or min_tokens and max_tokens when no user has any (AIBrix's
// GetMinTokenCount/GetMaxTokenCount). It is recomputed only when a count
// changed or the window moved.
func (r *vtcBasic) extrema(cutoff int64) (float64, float64) {
	if r.extremaValid && cutoff == r.extremaCutoff {
		return r.minSeen, r.maxSeen
	}
	lo, hi := math.Inf(1), 0.0
	for _, u := range r.users {
		u.prune(cutoff)
		if u.total > 0 {
			lo, hi = math.Min(lo, u.total), math.Max(hi, u.total)
		}
	}
	if hi == 0 {
		lo, hi = r.minTokens, r.maxTokens
	}
	r.minSeen, r.maxSeen, r.extremaCutoff, r.extremaValid = lo, hi, cutoff, true
	return lo, hi
}

// prune drops buckets older than cutoff and reports whether any went.
func (u *userWindow) prune(cutoff int64) bool {
	k := 0
	for k < len(u.buckets) && u.buckets[k].ts < cutoff {
		u.total -= u.buckets[k].tokens
		k++
	}
	if k == 0 {
		return false
	}
	u.buckets = append(u.buckets[:0], u.buckets[k:]...)
	if len(u.buckets) == 0 {
		u.total = 0 // no float residue once empty
	}
	return true
}
