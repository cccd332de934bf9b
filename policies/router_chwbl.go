package policies

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

func init() {
	RegisterRouter(chwblSpec(), newCHWBL)
}

// chwblSpec documents chwbl. Defaults are KubeAI's (prefixCharLength 100,
// replication 256, load factor 1.25). By default the bound tests the
// backend's current in-flight; KubeAI's code (balance_chwbl.go,
// chwblLoadOK) tests in-flight+1 and accepts any backend while nothing is
// in flight: preset kubeai-code.
func chwblSpec() Spec {
	return Spec{
		Name: "chwbl",
		Doc: "KubeAI consistent hashing with bounded loads: hash adapter + first prefix_chars characters of the " +
			"first user message onto a ring of replication virtual nodes per backend; walk clockwise to the first " +
			"backend with in-flight <= load_factor*(total in-flight+1)/n",
		Needs:  []string{"prompt", "in-flight"},
		Source: "KubeAI CHWBL load balancing (kubeai.org blog 2025-02-26; substratusai/kubeai internal/loadbalancer/balance_chwbl.go)",
		Params: []ParamSpec{
			{Name: "prefix_chars", Kind: kInt, Default: traces.ParamInt(100), Doc: "characters of the first user message (or prompt) in the key; token-exact prompts: prefix_chars/4 tokens"},
			{Name: "replication", Kind: kInt, Default: traces.ParamInt(256), Doc: "virtual nodes per backend on the ring"},
			{Name: "load_factor", Kind: kFloat, Default: traces.ParamFloat(1.25), Doc: "bound on a backend's load relative to the mean (total+1)/n; >= 1"},
			{Name: "count_new_request", Kind: kBool, Default: traces.ParamBool(false), Doc: "true: test in-flight+1 against the bound and accept any backend while nothing is in flight (KubeAI's code)"},
		},
		Presets: map[string]Params{"kubeai-code": {"count_new_request": traces.ParamBool(true)}},
	}
}

// chwbl is KubeAI's consistent hashing with bounded loads. The ring is
// keyed by Backend.ID, so removing a Backend moves only its keys; it is
// rebuilt when the set of Backends changes.
type chwbl struct {
	prefixChars int
	loadFactor  float64
	countNew    bool

	ring    hashRing // points named ID + number, as KubeAI's
	visited []bool
}

func newCHWBL(p Params, _ *rand.Rand) (Router, error) {
	r := &chwbl{}
	var err error
	if r.prefixChars, err = p.Int("prefix_chars", 1, 1<<20); err != nil {
		return nil, err
	}
	if r.ring, err = newHashRing(p, ""); err != nil {
		return nil, err
	}
	if r.loadFactor, err = p.Float("load_factor", 1, 1e6); err != nil {
		return nil, err
	}
	if r.countNew, err = p.Bool("count_new_request"); err != nil {
		return nil, err
	}
	return r, nil
}

// Name implements Router.
func (r *chwbl) Name() string { return "chwbl" }

// Pick implements Router.
func (r *chwbl) Pick(req *traces.Request, st State) (Choice, error) {
	if len(st.Backends) == 0 {
		return Choice{}, errNoBackends
	}
	total := 0
	for _, b := range st.Backends {
		total += b.InFlight
	}
	bound := r.loadFactor * float64(total+1) / float64(len(st.Backends))
	start, first := r.ring.home(st.Backends, chwblKey(req, r.prefixChars))
	if r.loadOK(st.Backends[first].InFlight, total, bound) {
		return r.choose(st.Backends[first], true), nil
	}
	// Overflow: walk on to the next Backend not yet tried.
	r.visited = slices.Grow(r.visited[:0], len(st.Backends))[:len(st.Backends)]
	clear(r.visited)
	r.visited[first] = true
	for k, seen := 1, 1; k < len(r.ring.points) && seen < len(st.Backends); k++ {
		pos := int(r.ring.at(start, k).pos)
		if r.visited[pos] {
			continue
		}
		r.visited[pos], seen = true, seen+1
		if r.loadOK(st.Backends[pos].InFlight, total, bound) {
			return r.choose(st.Backends[pos], false), nil
		}
	}
	ch := r.choose(st.Backends[first], true)
	ch.Reason = "default"
	return ch, nil
}

func (r *chwbl) choose(b Backend, home bool) Choice {
	ch := Choice{Backend: b.Index, Reason: "hash"}
	if !home {
		ch.Reason = "overflow"
	}
	return ch
}

// loadOK is the bounded-load test.
func (r *chwbl) loadOK(inFlight, total int, bound float64) bool {
	if r.countNew {
		return total == 0 || float64(inFlight+1) <= bound
	}
	return float64(inFlight) <= bound
}

// chwblKey hashes the LoRA adapter and the first prefixChars characters of
// the first user message (chat) or the prompt; on token-exact Requests the
// first prefixChars/4 tokens (the block ids that cover them).
func chwblKey(req *traces.Request, prefixChars int) uint64 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(req.LoRA)
	_, _ = d.WriteString("\x00")
	toks := (prefixChars + CharsPerToken - 1) / CharsPerToken
	var buf [8]byte
	switch {
	case len(req.Messages) > 0:
		_, _ = d.WriteString(cut(firstUserMessage(req.Messages), prefixChars))
	case req.Prompt != "":
		_, _ = d.WriteString(cut(req.Prompt, prefixChars))
	case len(req.TokenIDs) > 0:
		for _, t := range req.TokenIDs[:min(toks, len(req.TokenIDs))] {
			binary.LittleEndian.PutUint32(buf[:4], uint32(t))
			_, _ = d.Write(buf[:4])
		}
	case len(req.BlockIDs) > 0:
		bs := max(req.BlockSize, 1)
		for _, id := range req.BlockIDs[:min((toks+bs-1)/bs, len(req.BlockIDs))] {
			binary.LittleEndian.PutUint64(buf[:], id)
			_, _ = d.Write(buf[:])
		}
	default:
		_, _ = d.WriteString(req.ID)
	}
	return d.Sum64()
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// firstUserMessage returns the content of the first user message, else of
// the first message.
func firstUserMessage(ms []traces.Message) string {
	for _, m := range ms {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ms[0].Content
}
