package policies

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(cacheAwareSpec(), newCacheAware)
}

// cacheAwareSpec documents cache-aware. Defaults are SGLang router's
// (balance_abs_threshold 64, balance_rel_threshold 1.5, eviction interval
// 60 s, max tree size 2^26); cache_threshold 0.3 is the newer releases'
// default (older ones used 0.5).
func cacheAwareSpec() Spec {
	return Spec{
		Name: "cache-aware",
		Doc: "SGLang cache-aware: fewest in-flight when max-min > balance_abs and max > balance_rel*min; else the " +
			"backend whose approximate radix tree matches the longest prefix if matched/total >= cache_threshold, " +
			"else the least-loaded (or smallest-tree) backend; LRU leaves evicted past max_tree_chars",
		Needs:  []string{"prompt", "in-flight"},
		Source: "SGLang router cache_aware policy (sgl-project/sglang, sgl-router CacheAwarePolicy)",
		Params: []ParamSpec{
			{Name: "cache_threshold", Kind: kFloat, Default: traces.ParamFloat(0.3), Doc: "least matched/total prompt ratio to follow the cache (0..1)"},
			{Name: "balance_abs", Kind: kInt, Default: traces.ParamInt(64), Doc: "imbalance needs max-min in-flight above this"},
			{Name: "balance_rel", Kind: kFloat, Default: traces.ParamFloat(1.5), Doc: "... and max in-flight above this times min"},
			{Name: "max_tree_chars", Kind: kInt, Default: traces.ParamInt(67108864), Doc: "characters per backend before LRU leaves are evicted (2^26; a token counts 4, a block id 4 x its tokens)"},
			{Name: "eviction_interval", Kind: kDuration, Default: spelled(traces.ParamDuration(time.Minute), "60s"), Doc: "how often trees are trimmed to max_tree_chars (run time)"},
			{Name: "fallback", Kind: kString, Default: traces.ParamString("least-load"), Doc: "below cache_threshold: least-load (newer releases) or smallest-tree (older releases)"},
			indexAnswersParam,
		},
		Presets: map[string]Params{"sglang-legacy": {"fallback": traces.ParamString("smallest-tree"), "cache_threshold": traces.ParamFloat(0.5)}},
	}
}

// cacheAware is SGLang's cache-aware Router. It keeps one multi-tenant
// radix tree per model/adapter and prompt form: text (bytes), token ids or
// block ids.
type cacheAware struct {
	prefixBase
	threshold, balanceRel float64
	balanceAbs, maxChars  int
	interval, lastEvict   time.Duration
	smallestTree          bool
	text                  map[uint64]*radixTree[byte]
	tokens                map[uint64]*radixTree[int]
	blocks                map[[2]uint64]*radixTree[uint64]
	set                   backendSet
	best                  []int
	textBuf               []byte
}

func newCacheAware(p Params, rng *rand.Rand) (Router, error) {
	r := &cacheAware{text: map[uint64]*radixTree[byte]{}, tokens: map[uint64]*radixTree[int]{},
		blocks: map[[2]uint64]*radixTree[uint64]{}}
	var err error
	if r.prefixBase, err = newPrefixBase(p, rng); err != nil {
		return nil, err
	}
	if r.threshold, err = p.Float("cache_threshold", 0, 1); err != nil {
		return nil, err
	}
	if r.balanceAbs, err = p.Int("balance_abs", 0, 1<<30); err != nil {
		return nil, err
	}
	if r.balanceRel, err = p.Float("balance_rel", 1, 1e9); err != nil {
		return nil, err
	}
	if r.maxChars, err = p.Int("max_tree_chars", 1, 1<<62); err != nil {
		return nil, err
	}
	if r.interval, err = p.Duration("eviction_interval"); err != nil {
		return nil, err
	}
	fb, err := p.OneOf("fallback", "least-load", "smallest-tree")
	if err != nil {
		return nil, err
	}
	r.smallestTree = fb == "smallest-tree"
	return r, nil
}

// Name implements Router.
func (r *cacheAware) Name() string { return "cache-aware" }

// Pick implements Router.
func (r *cacheAware) Pick(req *traces.Request, st State) (Choice, error) {
	n := len(st.Backends)
	if n == 0 {
		return Choice{}, errNoBackends
	}
	r.maybeEvict(st.Now)
	r.view.load(req)
	r.set.load(st.Backends)
	r.best = slices.Grow(r.best[:0], n)[:n]
	clear(r.best)
	tree := r.tree()
	tree.match(r, r.best)

	stats := inFlightStats(st.Backends)
	var ch Choice
	if stats.Max-stats.Min > r.balanceAbs && float64(stats.Max) > r.balanceRel*float64(stats.Min) {
		ch.Backend, _ = LeastLoaded(st.Backends, r.rng)
		ch.Reason = "imbalance"
	} else {
		ch = r.byCache(st.Backends, tree)
	}
	pos, _ := r.set.lookup(ch.Backend)
	ch.PredictedHitTokens = r.view.toTokens(r.matchedUnits(r.best[pos]))
	tree.insert(r, ch.Backend, st.Now)
	return ch, nil
}

// IndexAnswer implements AnswerIndexer: with index_answers, req (a prompt
// extended by its answer) is inserted into backend's tree.
func (r *cacheAware) IndexAnswer(now time.Duration, req *traces.Request, backend int) {
	if !r.indexAnswers {
		return
	}
	r.view.load(req)
	r.textBuf = append(r.textBuf[:0], r.view.text...)
	r.tree().insert(r, backend, now)
}

// byCache follows the longest match (ties: fewer in-flight, then the seeded
// RNG) when it covers cache_threshold of the prompt, else the fallback.
func (r *cacheAware) byCache(bs []Backend, tree prefixTree) Choice {
	top := argmin(bs, r.rng, func(a, b *Backend) int {
		pa, _ := r.set.lookup(a.Index)
		pb, _ := r.set.lookup(b.Index)
		if r.best[pa] != r.best[pb] {
			return r.best[pb] - r.best[pa]
		}
		return a.InFlight - b.InFlight
	})
	if m := r.matchedUnits(r.best[top]); m > 0 && r.view.units > 0 &&
		float64(m)/float64(r.view.units) >= r.threshold {
		return Choice{Backend: bs[top].Index, Reason: "cache"}
	}
	if r.smallestTree {
		i := argmin(bs, r.rng, func(a, b *Backend) int { return tree.size(a.Index) - tree.size(b.Index) })
		return Choice{Backend: bs[i].Index, Reason: "smallest-tree"}
	}
	i, _ := LeastLoaded(bs, r.rng)
	return Choice{Backend: i, Reason: "least-load"}
}

// matchedUnits converts matched symbols to the view's units (block ids
// stand for blockSize tokens each).
func (r *cacheAware) matchedUnits(symbols int) int {
	if r.view.kind == kindBlocks {
		return min(symbols*r.view.blockSize, r.view.units)
	}
	return symbols
}

// maybeEvict trims every tree once per eviction interval of run time.
func (r *cacheAware) maybeEvict(now time.Duration) {
	if now-r.lastEvict < r.interval {
		return
	}
	r.lastEvict = now
	for _, t := range r.text {
		t.evict(r.maxChars)
	}
	for _, t := range r.tokens {
		t.evict(r.maxChars)
	}
	for _, t := range r.blocks {
		t.evict(r.maxChars)
	}
}

// prefixTree is the tree of the current view's prompt form.
type prefixTree interface {
	match(r *cacheAware, best []int)
	insert(r *cacheAware, backend int, now time.Duration)
	size(backend int) int
}

// tree returns (creating) the tree for the current view.
func (r *cacheAware) tree() prefixTree {
	v := &r.view
	switch v.kind {
	case kindText:
		t := r.text[v.seed]
		if t == nil {
			t = newRadixTree[byte](1)
			r.text[v.seed] = t
		}
		return textTree{t}
	case kindTokens:
		t := r.tokens[v.seed]
		if t == nil {
			t = newRadixTree[int](CharsPerToken)
			r.tokens[v.seed] = t
		}
		return tokenTree{t}
	}
	k := [2]uint64{v.seed, uint64(v.blockSize)}
	t := r.blocks[k]
	if t == nil {
		t = newRadixTree[uint64](CharsPerToken * v.blockSize)
		r.blocks[k] = t
	}
	return blockTree{t}
}

type textTree struct{ t *radixTree[byte] }

func (x textTree) match(r *cacheAware, best []int) {
	r.textBuf = append(r.textBuf[:0], r.view.text...)
	x.t.match(r.textBuf, &r.set, best)
}
func (x textTree) insert(r *cacheAware, b int, now time.Duration) { x.t.insert(r.textBuf, b, now) }
func (x textTree) size(b int) int                                 { return x.t.Size(b) }

type tokenTree struct{ t *radixTree[int] }

func (x tokenTree) match(r *cacheAware, best []int) { x.t.match(r.view.tokens, &r.set, best) }
func (x tokenTree) insert(r *cacheAware, b int, now time.Duration) {
	x.t.insert(r.view.tokens, b, now)
}
func (x tokenTree) size(b int) int { return x.t.Size(b) }

type blockTree struct{ t *radixTree[uint64] }

func (x blockTree) match(r *cacheAware, best []int) { x.t.match(r.view.blocks, &r.set, best) }
func (x blockTree) insert(r *cacheAware, b int, now time.Duration) {
	x.t.insert(r.view.blocks, b, now)
}
func (x blockTree) size(b int) int { return x.t.Size(b) }
