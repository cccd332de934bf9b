package policies

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(simHashSpec(), newSimHash)
}

// simHashSpec documents simhash. Defaults: the production stack's
// max_length 512 and uhashring's ketama-compatible 160 points per node.
func simHashSpec() Spec {
	return Spec{
		Name: "simhash",
		Doc: "vLLM production-stack SimHash consistent hashing: a 64-bit SimHash fingerprint of the first " +
			"max_chars characters of the prompt (4-character shingles of its lower-cased letters and digits; " +
			"4-token shingles, or block ids weighted by their tokens, on token-exact prompts), placed on a ring " +
			"of replication points per backend; the first backend clockwise; no load signal (LoRA-aware)",
		Needs:  []string{"prompt"},
		Source: "vLLM production-stack SimhashAffinity (src/vllm_router/affinity/simhash_affinity.py; production-stack issue 59), simhash and uhashring Python packages",
		Params: []ParamSpec{
			{Name: "max_chars", Kind: kInt, Default: traces.ParamInt(512), Doc: "leading characters fingerprinted (token-exact prompts: max_chars/4 tokens)"},
			{Name: "replication", Kind: kInt, Default: traces.ParamInt(160), Doc: "points per backend on the ring (uhashring: 40 vnodes x 4 replicas)"},
		},
	}
}

// simHash is the production stack's SimhashAffinity: near-duplicate
// prompt openings share a fingerprint, and the fingerprint (hashed again,
// as the ring hashes its key) picks a point on a consistent-hash ring
// keyed by Backend.ID. Two fingerprints one bit apart land anywhere on the
// ring: only prompts whose fingerprints are equal go together. Its
// predicted hit comes from the replay's shared HitModel.
type simHash struct {
	maxChars int
	ring     hashRing // points named ID-number, as uhashring's
	acc      [64]int64
}

func newSimHash(p Params, _ *rand.Rand) (Router, error) {
	r := &simHash{}
	var err error
	if r.maxChars, err = p.Int("max_chars", 1, 1<<24); err != nil {
		return nil, err
	}
	if r.ring, err = newHashRing(p, "-"); err != nil {
		return nil, err
	}
	return r, nil
}

// Name implements Router.
func (r *simHash) Name() string { return "simhash" }

// Pick implements Router.
func (r *simHash) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	_, pos := r.ring.home(st.Backends, mix64(r.fingerprint(req)^modelSeed(req)))
	return Choice{Backend: st.Backends[pos].Index, Reason: "hash"}, nil
}

// fingerprint is the 64-bit SimHash of the opening of req's prompt: each
// feature's xxhash adds its weight to the bits it has set and subtracts it
// from the others; bit i of the result is set when bit i's sum is
// positive.
func (r *simHash) fingerprint(req *traces.Request) uint64 {
	clear(r.acc[:])
	toks := max(1, r.maxChars/CharsPerToken)
	var buf [16]byte
	switch {
	case len(req.TokenIDs) > 0:
		ids := req.TokenIDs[:min(toks, len(req.TokenIDs))]
		for i := 0; i == 0 || i+4 <= len(ids); i++ {
			n := 0
			for _, t := range ids[i:min(i+4, len(ids))] {
				binary.LittleEndian.PutUint32(buf[n:], uint32(t))
				n += 4
			}
			r.add(xxhash.Sum64(buf[:n]), 1)
		}
	case len(req.BlockIDs) > 0:
		bs := req.BlockSize
		if bs <= 0 {
			bs = 512
		}
		left := toks
		for _, id := range req.BlockIDs {
			if left <= 0 {
				break
			}
			binary.LittleEndian.PutUint64(buf[:8], id)
			r.add(xxhash.Sum64(buf[:8]), int64(min(bs, left)))
			left -= bs
		}
	default:
		r.textFeatures(cut(traces.PromptText(req), r.maxChars))
	}
	var fp uint64
	for i, v := range r.acc {
		if v > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

// textFeatures adds the 4-character shingles of the word characters of s
// (ASCII letters lower-cased, digits, underscore, and every non-ASCII
// byte), or the whole of them when fewer than 4, as the simhash package's
// default tokenizer does.
func (r *simHash) textFeatures(s string) {
	var clean []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			clean = append(clean, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c >= 0x80:
			clean = append(clean, c)
		}
	}
	for i := 0; i == 0 || i+4 <= len(clean); i++ {
		r.add(xxhash.Sum64(clean[i:min(i+4, len(clean))]), 1)
	}
}

// add counts feature hash h with weight w.
func (r *simHash) add(h uint64, w int64) {
	for h2, i := h, 0; i < 64; i++ {
		if h2&1 != 0 {
			r.acc[i] += w
		} else {
			r.acc[i] -= w
		}
		h2 >>= 1
	}
}
