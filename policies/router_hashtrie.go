package policies

import (
	"math/rand/v2"
	"time"

	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(hashTrieSpec(), newHashTrie)
}

// hashTrieSpec documents hashtrie. The 128-character chunk is the
// production stack's HashTrie default (src/vllm_router/prefix/hashtrie.py).
func hashTrieSpec() Spec {
	return Spec{
		Name: "hashtrie",
		Doc: "vLLM production-stack prefix-aware router: a trie of hashed chunk_chars-character chunks of every " +
			"prompt routed, each node holding the backends sent that prefix; walk the prompt's chunks narrowing " +
			"to the backends that hold each one, stop before the set would empty, pick uniformly among the rest; " +
			"no eviction, no load signal (LoRA-aware)",
		Needs:  []string{"prompt"},
		Source: "vLLM production-stack PrefixAwareRouter and HashTrie (src/vllm_router/routers/routing_logic.py, src/vllm_router/prefix/hashtrie.py; production-stack issue 59)",
		Params: []ParamSpec{
			{Name: "chunk_chars", Kind: kInt, Default: traces.ParamInt(128), Doc: "characters per hashed chunk (token-exact prompts: chunk_chars/4 tokens)"},
			indexAnswersParam,
		},
	}
}

// hashTrie is the production stack's PrefixAwareRouter. A trie node is the
// chained hash of a prompt's leading chunks (the chain stands for the path
// from the root), so the trie is a table from chained hash to the set of
// Backends routed a prompt with that prefix: a bit mask for Backend indexes
// below 64 and a second table, keyed by hash and index, above. Like the
// original it never forgets a prefix: memory grows with the distinct
// chunks routed (about 40 bytes each).
type hashTrie struct {
	prefixBase
	chunk int
	nodes hitTable // chained hash -> position in masks
	masks []uint64 // Backends with Index < 64 holding the node
	wide  map[uint64]struct{}
	cand  []int // positions in State.Backends still matching
	next  []int
}

func newHashTrie(p Params, rng *rand.Rand) (Router, error) {
	r := &hashTrie{wide: map[uint64]struct{}{}}
	var err error
	if r.prefixBase, err = newPrefixBase(p, rng); err != nil {
		return nil, err
	}
	if r.chunk, err = p.Int("chunk_chars", 1, 1<<20); err != nil {
		return nil, err
	}
	return r, nil
}

// Name implements Router.
func (r *hashTrie) Name() string { return "hashtrie" }

// Pick implements Router.
func (r *hashTrie) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	size := r.hashChunks(req, r.chunk, 0)
	r.cand = r.cand[:0]
	for i := range st.Backends {
		r.cand = append(r.cand, i)
	}
	matched := 0
	for _, h := range r.hashes {
		node, ok := r.nodes.get(h)
		if !ok {
			break
		}
		r.next = r.next[:0]
		for _, pos := range r.cand {
			if r.holds(node, h, st.Backends[pos].Index) {
				r.next = append(r.next, pos)
			}
		}
		if len(r.next) == 0 {
			break
		}
		r.cand, r.next = r.next, r.cand
		matched++
	}
	b := st.Backends[r.cand[r.rng.IntN(len(r.cand))]]
	r.insert(b.Index)
	ch := Choice{Backend: b.Index, Reason: "random", PredictedHitTokens: r.view.toTokens(matched * size)}
	if matched > 0 {
		ch.Reason = "prefix"
	}
	return ch, nil
}

// holds reports whether the Backend with Index idx holds node (hash h).
func (r *hashTrie) holds(node int32, h uint64, idx int) bool {
	if idx < 0 {
		return false
	}
	if idx < 64 {
		return r.masks[node]&(1<<idx) != 0
	}
	_, ok := r.wide[h^mix64(uint64(idx)+1)]
	return ok
}

// insert records every chunk of the current prompt for Backend idx.
// IndexAnswer implements AnswerIndexer: with index_answers, the chunks of
// req (a prompt extended by its answer) are inserted for backend.
func (r *hashTrie) IndexAnswer(_ time.Duration, req *traces.Request, backend int) {
	if !r.indexAnswers {
		return
	}
	r.hashChunks(req, r.chunk, 0)
	r.insert(backend)
}

func (r *hashTrie) insert(idx int) {
	if idx < 0 {
		return
	}
	for _, h := range r.hashes {
		node, ok := r.nodes.get(h)
		if !ok {
			node = int32(len(r.masks))
			r.masks = append(r.masks, 0)
			r.nodes.put(h, node)
		}
		if idx < 64 {
			r.masks[node] |= 1 << idx
		} else {
			r.wide[h^mix64(uint64(idx)+1)] = struct{}{}
		}
	}
}
