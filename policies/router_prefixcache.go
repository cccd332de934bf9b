package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

func init() {
	RegisterRouter(prefixCacheSpec(), newPrefixCache)
}

// prefixCacheSpec documents prefix-cache. Defaults are the
// configuration section of AIBrix's routing algorithms README
// (https://github.com/vllm-project/aibrix/blob/main/pkg/plugins/gateway/algorithms/README.md); AIBrix's code
// ships other defaults (pkg/utils/prefixcacheindexer/hash.go block size 4;
// prefix_cache.go imbalance 8, factor 1), offered as preset aibrix-code.
func prefixCacheSpec() Spec {
	return Spec{
		Name: "prefix-cache",
		Doc: "AIBrix prefix-cache-aware routing: least-request when in-flight max-min > imbalance_abs_count; " +
			"else the backend with the highest block-hash prefix match% (then fewest in-flight) whose " +
			"in-flight <= mean + std_dev_factor*stddev; else least-request",
		Needs:  []string{"in-flight", "prompt"},
		Source: "AIBrix prefix-cache router (vllm-project/aibrix pkg/plugins/gateway/algorithms/prefix_cache.go; pseudo-code and defaults: https://github.com/vllm-project/aibrix/blob/main/pkg/plugins/gateway/algorithms/README.md)",
		Params: []ParamSpec{
			{Name: "tokenizer", Kind: kString, Default: traces.ParamString("character"), Env: "AIBRIX_PREFIX_CACHE_TOKENIZER_TYPE",
				Doc: "character (UTF-8 bytes) or tiktoken (cl100k_base ids); token-exact prompts are hashed as their tokens"},
			{Name: "block_size", Kind: kString, Default: traces.ParamString("auto"), Env: "AIBRIX_PREFIX_CACHE_BLOCK_SIZE",
				Doc: "tokenizer units per hashed block; auto = 128 for character, 16 for tiktoken (the AIBrix README's recommendation); " +
					"on token-exact prompts character blocks are block_size/4 tokens"},
			{Name: "block_number", Kind: kInt, Default: traces.ParamInt(200000), Env: "AIBRIX_PREFIX_CACHE_BLOCK_NUMBER",
				Doc: "most block hashes the index holds; the least recently added is evicted"},
			{Name: "imbalance_abs_count", Kind: kInt, Default: traces.ParamInt(16), Env: "AIBRIX_PREFIX_CACHE_POD_RUNNING_REQUEST_IMBALANCE_ABS_COUNT",
				Doc: "max-min in-flight requests above which prefix matching is skipped for least-request"},
			{Name: "std_dev_factor", Kind: kFloat, Default: traces.ParamFloat(2), Env: "AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR",
				Doc: "a matching backend is taken only if its in-flight <= mean + factor x sample stddev of all backends"},
			{Name: "eviction_duration_mins", Kind: kInt, Default: traces.ParamInt(20), Env: "AIBRIX_PREFIX_CACHE_EVICTION_DURATION_MINS",
				Doc: "minutes after which a block hash not routed again is forgotten (TTL)"},
			indexAnswersParam,
		},
		Presets: map[string]Params{
			"aibrix-code": {"block_size": traces.ParamString("4"), "imbalance_abs_count": traces.ParamInt(8), "std_dev_factor": traces.ParamFloat(1)},
		},
	}
}

// prefixCache is AIBrix's prefix-cache-aware Router. Its cache view is a
// hashTable of chained block hashes; the view is updated for the chosen
// Backend after every pick, whichever branch chose it (as AIBrix does).
type prefixCache struct {
	// prefixBase's enc is nil for character, its hashes the scratch of
	// blockRefs.
	prefixBase
	blockChars  int // block size on text prompts
	blockTokens int // block size on token prompts
	imbalance   int
	factor      float64
	table       *hashTable

	set     backendSet
	refs    []blockRef // the prompt's blocks
	found   []uint64   // their arena slots + 1 (hashTable.resolve)
	matcher leadingMatcher
	matches []prefixMatch
	order   []prefixMatch
}

func newPrefixCache(p Params, rng *rand.Rand) (Router, error) {
	r := &prefixCache{}
	tok, err := p.OneOf("tokenizer", "character", "tiktoken")
	if err != nil {
		return nil, err
	}
	if r.prefixBase, err = newPrefixBase(p, rng); err != nil {
		return nil, err
	}
	if r.blockChars, r.blockTokens, err = aibrixBlockSize(p, tok); err != nil {
		return nil, err
	}
	if tok == "tiktoken" {
		if r.enc, err = tokenizer.New("tiktoken"); err != nil {
			return nil, fmt.Errorf("parameter tokenizer: %w", err)
		}
	}
	number, err := p.Int("block_number", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	if r.imbalance, err = p.Int("imbalance_abs_count", 0, 1<<30); err != nil {
		return nil, err
	}
	if r.factor, err = p.Float("std_dev_factor", 0, 1e6); err != nil {
		return nil, err
	}
	mins, err := p.Int("eviction_duration_mins", 1, 1<<20)
	if err != nil {
		return nil, err
	}
	r.table = newHashTable(number, time.Duration(mins)*time.Minute)
	return r, nil
}

// aibrixBlockSize resolves block_size for tokenizer tok into the block
// length on text and on token-exact prompts.
func aibrixBlockSize(p Params, tok string) (chars, toks int, err error) {
	if p.Text("block_size") == "auto" {
		if tok == "tiktoken" {
			return 16, 16, nil
		}
		return 128, 128 / CharsPerToken, nil
	}
	b, err := p.textInt("block_size", 1, 1<<20)
	if err != nil {
		return 0, 0, err
	}
	if tok == "tiktoken" {
		return b, b, nil
	}
	return b, max(1, b/CharsPerToken), nil
}

// Name implements Router.
func (r *prefixCache) Name() string { return "prefix-cache" }

// Pick implements Router.
func (r *prefixCache) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	r.table.expire(st.Now)
	r.loadPrompt(req)
	size := r.view.blockUnits(r.blockChars, r.blockTokens)
	r.refs = r.view.blockRefs(r.refs[:0], &r.hashes, size)
	r.found = r.table.resolve(r.refs, r.found[:0])
	r.set.load(st.Backends)
	r.matches = r.matcher.match(r.found, &r.set, r.table.holdersAt)

	stats := inFlightStats(st.Backends)
	var ch Choice
	switch {
	case stats.Max-stats.Min > r.imbalance:
		ch.Backend, _ = LeastLoaded(st.Backends, r.rng)
		ch.Reason = "imbalance"
	default:
		idx, ok := r.bestMatch(st.Backends, stats)
		if ok {
			ch.Backend, ch.Reason = idx, "prefix"
		} else {
			ch.Backend, _ = LeastLoaded(st.Backends, r.rng)
			ch.Reason = "least-request"
		}
	}
	ch.PredictedHitTokens = r.view.toTokens(blocksOf(r.matches, ch.Backend) * size)
	r.table.add(r.refs, ch.Backend, st.Now)
	return ch, nil
}

// IndexAnswer implements AnswerIndexer: with index_answers, the blocks of
// req (a prompt extended by its answer) are added for backend.
func (r *prefixCache) IndexAnswer(now time.Duration, req *traces.Request, backend int) {
	if !r.indexAnswers {
		return
	}
	r.loadPrompt(req)
	size := r.view.blockUnits(r.blockChars, r.blockTokens)
	r.refs = r.view.blockRefs(r.refs[:0], &r.hashes, size)
	r.table.add(r.refs, backend, now)
}

// bestMatch sorts the matching Backends by match% = floor(blocks*100 /
// all blocks) descending, then in-flight ascending (equal keys in seeded
// random order, as AIBrix shuffles before its stable sort), and returns the
// first whose in-flight <= mean + std_dev_factor*stddev. The README's
// configuration section and AIBrix's code use <=; with < no match could
// ever be taken while all Backends carry equal load (stddev 0).
func (r *prefixCache) bestMatch(bs []Backend, s loadStats) (int, bool) {
	if len(r.matches) == 0 {
		return 0, false
	}
	r.order = append(r.order[:0], r.matches...)
	r.rng.Shuffle(len(r.order), func(i, j int) { r.order[i], r.order[j] = r.order[j], r.order[i] })
	n := int32(len(r.refs))
	slices.SortStableFunc(r.order, func(a, b prefixMatch) int {
		pa, pb := a.Blocks*100/n, b.Blocks*100/n
		if pa != pb {
			return int(pb - pa)
		}
		return bs[a.Pos].InFlight - bs[b.Pos].InFlight
	})
	bound := s.Mean + r.factor*s.StdDev
	for _, m := range r.order {
		if float64(bs[m.Pos].InFlight) <= bound {
			return int(m.Index), true
		}
	}
	return 0, false
}
