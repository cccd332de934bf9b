package policies

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

func init() {
	RegisterRouter(approxPrefixSpec(), newApproxPrefix)
}

// approxPrefixSpec documents approx-prefix. Defaults: chunk of 64
// characters = vLLM's 16-token block x GIE's 4 characters per token;
// 256 chunks and 31,250 blocks per server are the GIE prefix plugin's
// DefaultMaxPrefixBlocks and DefaultLRUCapacityPerServer; weights 3/2/2
// and the queue threshold 128 (QUEUING_THRESHOLD_LORA) are GIE's default
// scheduler configuration. The proposal gives no value for the gain threshold;
// 0.1 (a tenth of the prompt) is ours.
func approxPrefixSpec() Spec {
	return Spec{
		Name: "approx-prefix",
		Doc: "GIE approximate prefix cache: per-backend LRU of chained chunk hashes (LoRA-aware); " +
			"drop backends past queue_threshold, then max of prefix_weight*match + queue_weight*queue score + " +
			"kv_weight*kv score, prefix counted only when the best match >= min_match",
		Needs:  []string{"prompt", "in-flight", "scrape (optional)"},
		Source: "Gateway API Inference Extension prefix-cache-aware routing proposal (https://github.com/kubernetes-sigs/gateway-api-inference-extension/blob/main/docs/proposals/005-prefix-cache-aware-routing-proposal/README.md) and EPP prefix plugin",
		Params: []ParamSpec{
			{Name: "chunk_chars", Kind: kInt, Default: traces.ParamInt(64), Doc: "characters per hashed chunk (token-exact or tokenized prompts: chunk_chars/4 tokens)"},
			{Name: "tokenizer", Kind: kString, Default: traces.ParamString("none"),
				Doc: "none: hash text prompts by characters, as GIE does; whitespace, character, tiktoken or hf:PATH " +
					"(a Hugging Face tokenizer.json): hash them as the token ids the server computes, in chunks of chunk_chars/4 tokens"},
			{Name: "max_chunks", Kind: kInt, Default: traces.ParamInt(256), Doc: "leading chunks hashed and matched per request"},
			{Name: "capacity_blocks", Kind: kInt, Default: traces.ParamInt(31250), Doc: "chunks each backend's LRU holds when the server reports no num_gpu_blocks"},
			{Name: "min_match", Kind: kFloat, Default: traces.ParamFloat(0.1), Doc: "gain threshold: prefix affinity is used only when the best match ratio is at least this (0..1)"},
			{Name: "prefix_weight", Kind: kFloat, Default: traces.ParamFloat(3), Doc: "weight of the prefix score (matched chunks / chunks)"},
			{Name: "queue_weight", Kind: kFloat, Default: traces.ParamFloat(2), Doc: "weight of the queue score ((max-q)/(max-min), q = scraped waiting or client in-flight)"},
			{Name: "kv_weight", Kind: kFloat, Default: traces.ParamFloat(2), Doc: "weight of the KV score (1 - kv_cache_usage_perc, or the in-flight tokens analogue without scrape)"},
			{Name: "queue_threshold", Kind: kInt, Default: traces.ParamInt(128), Doc: "backends with queue >= this are filtered out first (kept if all are)"},
			indexAnswersParam,
		},
	}
}

// approxPrefix is the GIE proposal's Router: an approximate per-backend
// LRU prefix cache combined with load scores.
type approxPrefix struct {
	prefixBase
	chunkChars, maxRun int
	minMatch           float64
	wPrefix, wQ, wKV   float64
	queueThreshold     float64
	index              *blockIndex
	// seen holds each Backend as last picked from (its cache size), with
	// index_answers.
	seen                []Backend
	set                 backendSet
	matcher             leadingMatcher
	matches             []prefixMatch
	kept, buf           []Backend
	prefixScore, qScore []float64
	kvScore             []float64
}

func newApproxPrefix(p Params, rng *rand.Rand) (Router, error) {
	r := &approxPrefix{}
	var err error
	if r.prefixBase, err = newPrefixBase(p, rng); err != nil {
		return nil, err
	}
	if r.chunkChars, err = p.Int("chunk_chars", 1, 1<<20); err != nil {
		return nil, err
	}
	if r.maxRun, err = p.Int("max_chunks", 1, 1<<20); err != nil {
		return nil, err
	}
	capBlocks, err := p.Int("capacity_blocks", 1, 1<<30)
	if err != nil {
		return nil, err
	}
	if r.minMatch, err = p.Float("min_match", 0, 1); err != nil {
		return nil, err
	}
	for _, w := range []struct {
		name string
		dst  *float64
	}{{"prefix_weight", &r.wPrefix}, {"queue_weight", &r.wQ}, {"kv_weight", &r.wKV}, {"queue_threshold", &r.queueThreshold}} {
		if *w.dst, err = p.Float(w.name, 0, 1e9); err != nil {
			return nil, err
		}
	}
	if tok := p.Text("tokenizer"); tok != "none" {
		if r.enc, err = tokenizer.Load(tok); err != nil {
			return nil, fmt.Errorf("parameter tokenizer: %w", err)
		}
	}
	r.index = newBlockIndex(capBlocks)
	return r, nil
}

// Name implements Router.
func (r *approxPrefix) Name() string { return "approx-prefix" }

// Pick implements Router.
func (r *approxPrefix) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	size := r.hashChunks(req, r.chunkChars, r.maxRun)
	r.kept = filterQueue(r.buf[:0], st.Backends, r.queueThreshold)
	if len(r.kept) < len(st.Backends) {
		r.buf = r.kept
	}
	r.set.load(r.kept)
	r.matches = r.matcher.match(r.hashes, &r.set, r.index.holders)

	best, reason := r.score(r.kept)
	b := r.kept[best]
	ch := Choice{Backend: b.Index, Reason: reason}
	ch.PredictedHitTokens = r.view.toTokens(blocksOf(r.matches, b.Index) * size)
	r.index.add(r.hashes, b)
	if r.indexAnswers {
		for len(r.seen) <= b.Index {
			r.seen = append(r.seen, Backend{Index: len(r.seen)})
		}
		r.seen[b.Index] = b
	}
	return ch, nil
}

// IndexAnswer implements AnswerIndexer: with index_answers, the chunks of
// req (a prompt extended by its answer) are added for backend.
func (r *approxPrefix) IndexAnswer(_ time.Duration, req *traces.Request, backend int) {
	if !r.indexAnswers || backend < 0 || backend >= len(r.seen) {
		return
	}
	r.hashChunks(req, r.chunkChars, r.maxRun)
	r.index.add(r.hashes, r.seen[backend])
}

// score returns the position in bs of the highest weighted score, ties
// broken uniformly by the seeded RNG, and the reason: "prefix" when prefix
// affinity was used and the chosen Backend matched, else "load".
func (r *approxPrefix) score(bs []Backend) (int, string) {
	r.prefixScore = resize(r.prefixScore, len(bs))
	reason := "load"
	if len(r.hashes) > 0 {
		bestRatio := 0.0
		for _, m := range r.matches {
			ratio := float64(m.Blocks) / float64(len(r.hashes))
			r.prefixScore[m.Pos] = ratio
			bestRatio = max(bestRatio, ratio)
		}
		if bestRatio > 0 && bestRatio >= r.minMatch {
			reason = "prefix"
		} else {
			clear(r.prefixScore)
		}
	}
	r.qScore = queueScores(r.qScore, bs)
	r.kvScore = kvScores(r.kvScore, bs)
	best, ties, bestScore := 0, 0, 0.0
	for i := range bs {
		s := r.wPrefix*r.prefixScore[i] + r.wQ*r.qScore[i] + r.wKV*r.kvScore[i]
		switch {
		case ties == 0 || s > bestScore:
			best, ties, bestScore = i, 1, s
		case s == bestScore:
			ties++
			if r.rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	if r.prefixScore[best] == 0 {
		reason = "load"
	}
	return best, reason
}

// resize returns buf with length n, zeroed.
func resize(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// allScraped reports whether every Backend has scraped server metrics.
func allScraped(bs []Backend) bool {
	for i := range bs {
		if !bs[i].Scraped {
			return false
		}
	}
	return len(bs) > 0
}

// queueOf is a Backend's queue: the scraped waiting requests when every
// Backend is scraped, else the client in-flight requests.
func queueOf(b Backend, scraped bool) float64 {
	if scraped {
		return b.Waiting
	}
	return float64(b.InFlight)
}

// filterQueue returns the Backends whose queue is below threshold (GIE
// low-queue filter: no hot spots), appended to dst, or bs itself when all
// or none of them are.
func filterQueue(dst, bs []Backend, threshold float64) []Backend {
	scraped := allScraped(bs)
	n := 0
	for _, b := range bs {
		if queueOf(b, scraped) < threshold {
			n++
		}
	}
	if n == 0 || n == len(bs) {
		return bs
	}
	for _, b := range bs {
		if queueOf(b, scraped) < threshold {
			dst = append(dst, b)
		}
	}
	return dst
}

// queueScores fills (max-q)/(max-min) per Backend, 1 when all are equal
// (GIE queue scorer).
func queueScores(dst []float64, bs []Backend) []float64 {
	dst = resize(dst, len(bs))
	scraped := allScraped(bs)
	lo, hi := queueOf(bs[0], scraped), queueOf(bs[0], scraped)
	for _, b := range bs {
		q := queueOf(b, scraped)
		lo, hi = min(lo, q), max(hi, q)
	}
	for i, b := range bs {
		dst[i] = 1
		if hi > lo {
			dst[i] = (hi - queueOf(b, scraped)) / (hi - lo)
		}
	}
	return dst
}

// kvScores fills per Backend 1 - kv_cache_usage_perc when every Backend
// is scraped (GIE KV-cache utilisation scorer); without scrape, 1 -
// InFlightTokens / the most in-flight tokens of any Backend (1 when none
// has any).
func kvScores(dst []float64, bs []Backend) []float64 {
	dst = resize(dst, len(bs))
	if allScraped(bs) {
		for i, b := range bs {
			dst[i] = 1 - min(max(b.KVUsage, 0), 1)
		}
		return dst
	}
	most := 0
	for _, b := range bs {
		most = max(most, b.InFlightTokens)
	}
	for i, b := range bs {
		dst[i] = 1
		if most > 0 {
			dst[i] = 1 - float64(b.InFlightTokens)/float64(most)
		}
	}
	return dst
}
