package policies

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

func init() {
	RegisterRouter(precisePrefixSpec(), newPrecisePrefix)
}

// precisePrefixSpec documents precise-prefix. The scorers are GIE's
// (prefix match share, min-max normalised queue, free KV share); the
// default weights were chosen on the Mooncake trace in simulation
// (docs/experiments.md), where llm-d's example weights (prefix 3, queue 2,
// KV 2) let load outweigh the prefix. The block size is vLLM's default.
func precisePrefixSpec() Spec {
	return Spec{
		Name: "precise-prefix",
		Doc: "accurate prefix cache on the router: an exact index of every backend's cached blocks from the " +
			"servers' own KV events; score = prefix_weight·(cached leading blocks / prompt blocks) + " +
			"queue_weight·(max−in-flight tokens)/(max−min) + kv_weight·(1−KV usage); highest wins (fewest in-flight, " +
			"then random, on ties); decides by load alone while a backend's event stream is unreachable",
		Needs:  []string{"in-flight", "prompt", "kv-events"},
		Source: "GIE prefix-cache-aware routing proposal (accurate prefix cache on the router); llm-d precise-prefix-cache-scorer; vLLM KV events (docs.vllm.ai, --kv-events-config)",
		Params: []ParamSpec{
			{Name: "block_size", Kind: kInt, Default: traces.ParamInt(16),
				Doc: "tokens per KV block; must be the servers' (vLLM --block-size, tracebench mock --block-size); " +
					"events of another size are counted and ignored"},
			{Name: "tokenizer", Kind: kString, Default: traces.ParamString("whitespace"),
				Doc: "tokenizer for text prompts: whitespace, character, tiktoken or hf:PATH (a Hugging Face tokenizer.json, " +
					"the server's model's for exact blocks; must be the server's to be exact; " +
					"token-exact prompts are hashed as their token ids)"},
			{Name: "prefix_weight", Kind: kFloat, Default: traces.ParamFloat(3), Doc: "weight of the cached-prefix score in [0, 1]"},
			{Name: "queue_weight", Kind: kFloat, Default: traces.ParamFloat(0.25),
				Doc: "weight of the load score: in-flight prompt+output tokens, min-max normalised as GIE's queue scorer"},
			{Name: "kv_weight", Kind: kFloat, Default: traces.ParamFloat(0), Doc: "weight of 1 − scraped KV cache usage (no effect without --scrape)"},
			{Name: "block_limit", Kind: kInt, Default: traces.ParamInt(1048576), Doc: "most blocks indexed per backend; further stored blocks are counted as overflow"},
			{Name: "hashes", Kind: kString, Default: traces.ParamString("auto"),
				Doc: "engine: index blocks by the hashes in the events (the mock's, which the router reproduces); " +
					"tokens: by hashes recomputed from each BlockStored's token ids (for vLLM and llm-d-inference-sim, " +
					"whose hashes it does not reproduce); auto: per backend, engine when its first stored blocks' hashes " +
					"are the chain of their token ids (tracebench's mock), else tokens"},
		},
	}
}

// KVEventRouter is a Router that decides from the servers' KV events.
// The replay calls BindKVEvents once before the first Pick with the
// number of backends and feeds the returned Index: from each backend's
// event stream in real time, or straight from the simulated engines.
type KVEventRouter interface {
	Router
	BindKVEvents(backends int) (*kvevents.Index, error)
}

// precisePrefix is the accurate prefix-cache router.
type precisePrefix struct {
	rng        *rand.Rand
	enc        tokenizer.Tokenizer
	blockSize  int
	limit      int
	wPrefix    float64
	wQueue     float64
	wKV        float64
	idx        *kvevents.Index
	fallback   bool // a stream is unreachable: decide by load alone
	checkEvery int  // picks between checks of the streams' state
	picks      int
	hashMode   kvevents.HashMode // how the index keys the events' blocks

	hashes  []uint64
	matched []int
}

func newPrecisePrefix(p Params, rng *rand.Rand) (Router, error) {
	r := &precisePrefix{rng: rng, checkEvery: 64}
	var err error
	if r.blockSize, err = p.Int("block_size", 1, 1<<16); err != nil {
		return nil, err
	}
	if r.enc, err = tokenizer.Load(p.Text("tokenizer")); err != nil {
		return nil, fmt.Errorf("parameter tokenizer: %w", err)
	}
	if r.wPrefix, err = p.Float("prefix_weight", 0, 1e6); err != nil {
		return nil, err
	}
	if r.wQueue, err = p.Float("queue_weight", 0, 1e6); err != nil {
		return nil, err
	}
	if r.wKV, err = p.Float("kv_weight", 0, 1e6); err != nil {
		return nil, err
	}
	if r.limit, err = p.Int("block_limit", 1, 1<<30); err != nil {
		return nil, err
	}
	h, err := p.OneOf("hashes", "auto", "engine", "tokens")
	if err != nil {
		return nil, err
	}
	r.hashMode = map[string]kvevents.HashMode{"auto": kvevents.HashesAuto, "engine": kvevents.HashesEngine,
		"tokens": kvevents.HashesTokens}[h]
	return r, nil
}

// Name implements Router.
func (r *precisePrefix) Name() string { return "precise-prefix" }

// BindKVEvents implements KVEventRouter.
func (r *precisePrefix) BindKVEvents(backends int) (*kvevents.Index, error) {
	idx, err := kvevents.NewIndex(backends, r.blockSize, r.limit)
	if err != nil {
		return nil, fmt.Errorf("precise-prefix: %w", err)
	}
	idx.SetHashes(r.hashMode)
	r.idx = idx
	return idx, nil
}

// errUnbound is Pick's error when no event stream was bound.
var errUnbound = errors.New("precise-prefix: no KV event index bound (the replay binds one before the first pick)")

// Pick implements Router.
func (r *precisePrefix) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	if r.idx == nil {
		return Choice{}, errUnbound
	}
	r.idx.Advance(st.Now)
	toks := r.promptTokens(req)
	r.hashes = kvevents.ChainHashes(r.hashes[:0], toks, r.blockSize, kvevents.SaltHash(cacheSalt(req)))
	r.matched = r.idx.Match(r.hashes, r.matched)
	if r.streamsDown() {
		b := st.Backends[leastLoadedPos(st.Backends, r.rng)]
		return Choice{Backend: b.Index, Reason: "fallback-load", PredictedHitTokens: r.predicted(b.Index, len(toks))}, nil
	}
	pos, reason := r.best(st.Backends)
	b := st.Backends[pos].Index
	return Choice{Backend: b, Reason: reason, PredictedHitTokens: r.predicted(b, len(toks))}, nil
}

// promptTokens is the prompt as the server sees it: the token ids of a
// token-exact Request, else its text through the configured tokenizer.
func (r *precisePrefix) promptTokens(req *traces.Request) []int {
	if ids := traces.PromptTokens(req); len(ids) > 0 {
		return ids
	}
	return r.enc.Encode(traces.PromptText(req))
}

// cacheSalt is the salt the mock server keys a LoRA adapter's blocks by.
func cacheSalt(req *traces.Request) string {
	if req.LoRA == "" {
		return ""
	}
	return "lora:" + req.LoRA + "\x00"
}

// predicted is the prompt tokens backend b serves from its cache: its
// cached leading blocks, never the prompt's last token (the server
// always computes it).
func (r *precisePrefix) predicted(b, promptLen int) int {
	if b < 0 || b >= len(r.matched) || promptLen == 0 {
		return 0
	}
	return min(r.matched[b], (promptLen-1)/r.blockSize) * r.blockSize
}

// streamsDown reports, re-checked every checkEvery picks, whether some
// backend's event stream is unreachable.
func (r *precisePrefix) streamsDown() bool {
	if r.picks%r.checkEvery == 0 {
		r.fallback = false
		for _, s := range r.idx.Stats() {
			r.fallback = r.fallback || s.Unreachable != ""
		}
	}
	r.picks++
	return r.fallback
}

// best returns the position in bs of the highest score and its reason:
// "prefix" when the winner holds a cached prefix, else "load".
func (r *precisePrefix) best(bs []Backend) (int, string) {
	lo, hi := bs[0].InFlightTokens, bs[0].InFlightTokens // GIE's queue scorer, on tokens
	for _, b := range bs[1:] {
		lo, hi = min(lo, b.InFlightTokens), max(hi, b.InFlightTokens)
	}
	best, ties := -1, 0
	var bestScore float64
	for i, b := range bs {
		s := r.score(b, lo, hi)
		switch {
		case best < 0 || s > bestScore || s == bestScore && b.InFlight < bs[best].InFlight:
			best, bestScore, ties = i, s, 1
		case s == bestScore && b.InFlight == bs[best].InFlight:
			ties++
			if r.rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	if m := r.matchOf(bs[best].Index); m > 0 {
		return best, "prefix"
	}
	return best, "load"
}

// score is backend b's weighted score given the in-flight range lo..hi.
func (r *precisePrefix) score(b Backend, lo, hi int) float64 {
	var prefix float64
	if len(r.hashes) > 0 {
		prefix = float64(r.matchOf(b.Index)) / float64(len(r.hashes))
	}
	queue := 1.0
	if hi > lo {
		queue = float64(hi-b.InFlightTokens) / float64(hi-lo)
	}
	kv := 1.0
	if b.Scraped {
		kv = 1 - b.KVUsage
	}
	return r.wPrefix*prefix + r.wQueue*queue + r.wKV*kv
}

func (r *precisePrefix) matchOf(b int) int {
	if b < 0 || b >= len(r.matched) {
		return 0
	}
	return r.matched[b]
}

// PredictsHits implements HitPredictor: the Choice's predicted hit is the
// prefix the KV events say the chosen Backend holds.
func (r *precisePrefix) PredictsHits() {}
