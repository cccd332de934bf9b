package policies

import (
	"github.com/tracebench/tracebench/traces"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestCacheAware(t *testing.T) {
	tests := []struct {
		name   string
		params Params
		warm   []step // routed with only() to build the trees
		req    step
	}{
		{
			// max-min = 70 > 64 and 70 > 1.5*0: imbalanced, fewest in-flight b0.
			name: "imbalance", warm: []step{{req: textReq("w", "hello world", 11), st: only(fleet(0, 0, 0), 1, 0)}},
			req: step{req: textReq("r", "hello world", 11), st: State{Backends: fleet(0, 70, 10)}, want: 0, reason: "imbalance"},
		},
		{
			// 215-150 = 65 > 64 but 215 <= 1.5*150 = 225: balanced, so the
			// cache decides: b1 holds all 11 of 11 characters (>= 0.3).
			name: "relative threshold keeps balance", warm: []step{{req: textReq("w", "hello world", 11), st: only(fleet(0, 0, 0), 1, 0)}},
			req: step{req: textReq("r", "hello world", 11), st: State{Backends: fleet(150, 215, 150)}, want: 1, reason: "cache", hit: 11},
		},
		{
			// b1 matches 11 of 13 characters = 0.85 >= 0.3; 22 tokens stated:
			// 11*22/13 = 18 predicted hit tokens.
			name: "cache hit above threshold", warm: []step{{req: textReq("w", "hello world", 11), st: only(fleet(0, 0, 0), 1, 0)}},
			req: step{req: textReq("r", "hello world!!", 22), st: State{Backends: fleet(0, 3, 0)}, want: 1, reason: "cache", hit: 18},
		},
		{
			// 5 of 30 characters = 0.17 < 0.3: least-load, b0 (in-flight 0).
			name: "below threshold goes to least load", warm: []step{{req: textReq("w", "hello", 5), st: only(fleet(0, 0, 0), 1, 0)}},
			req: step{req: textReq("r", "hello, this is a long question", 30), st: State{Backends: fleet(0, 2, 1)}, want: 0, reason: "least-load"},
		},
		{
			// smallest-tree: b0 holds 20 characters, b2 5, b1 none: b1.
			name: "legacy smallest tree", params: Params{"fallback": traces.ParamString("smallest-tree")},
			warm: []step{
				{req: textReq("w0", "aaaaaaaaaaaaaaaaaaaa", 5), st: only(fleet(0, 0, 0), 0, 0)},
				{req: textReq("w2", "bbbbb", 2), st: only(fleet(0, 0, 0), 2, 0)},
			},
			req: step{req: textReq("r", "zzzz", 1), st: State{Backends: fleet(0, 5, 0)}, want: 1, reason: "smallest-tree"},
		},
		{
			// b0 "abcdef" (6), b2 "abcdefghij" (10) of 12: the longest, b2.
			name: "longest match wins",
			warm: []step{
				{req: textReq("w0", "abcdef", 6), st: only(fleet(0, 0, 0), 0, 0)},
				{req: textReq("w2", "abcdefghij", 10), st: only(fleet(0, 0, 0), 2, 0)},
			},
			req: step{req: textReq("r", "abcdefghijkl", 12), st: State{Backends: fleet(0, 0, 5)}, want: 2, reason: "cache", hit: 10},
		},
		{
			// "abcd" on b0, "abxy" on b1 split the edge after "ab"; "ab" matches
			// 2 of 2 on both, the tie goes to fewer in-flight: b1.
			name: "split edge shared prefix tie by load",
			warm: []step{
				{req: textReq("w0", "abcd", 4), st: only(fleet(0, 0), 0, 0)},
				{req: textReq("w1", "abxy", 4), st: only(fleet(0, 0), 1, 0)},
			},
			req: step{req: textReq("r", "ab", 2), st: State{Backends: fleet(3, 1)}, want: 1, reason: "cache", hit: 2},
		},
		{
			// Mooncake-style block ids of 512 tokens: [1 2 4] matches [1 2] of
			// b1's [1 2 3]: 1024 of 1400 tokens = 0.73: b1, 1024 predicted.
			name: "block ids",
			warm: []step{{req: blockReq("w", 512, 1500, 1, 2, 3), st: only(fleet(0, 0, 0), 1, 0)}},
			req:  step{req: blockReq("r", 512, 1400, 1, 2, 4), st: State{Backends: fleet(0, 1, 0)}, want: 1, reason: "cache", hit: 1024},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "cache-aware", tc.params, 1)
			for i := range tc.warm {
				tc.warm[i].want = -1
			}
			runSteps(t, r, append(tc.warm, tc.req))
		})
	}
}

func TestCacheAwareEviction(t *testing.T) {
	r := mustRouter(t, "cache-aware", Params{"max_tree_chars": traces.ParamInt(10), "eviction_interval": traces.ParamDuration(time.Minute)}, 1)
	bs := fleet(0, 0, 0)
	mustPick(t, r, textReq("a", "aaaaaaaaaa", 10), only(bs, 0, 0))
	mustPick(t, r, textReq("b", "bbbbbbbbbb", 10), only(bs, 0, time.Second))
	tree := r.(*cacheAware).text[0]
	if got := tree.Size(0); got != 20 {
		t.Fatalf("b0 holds %d characters before eviction, want 20", got)
	}
	// At 61 s the eviction runs first: 20 > 10, so the least recently used
	// leaf ("aaaaaaaaaa", used at 0 s) goes and "bbbbbbbbbb" stays.
	ch := mustPick(t, r, textReq("a2", "aaaaaaaaaa", 10), State{Now: 61 * time.Second, Backends: fleet(1, 0, 0)})
	if ch.Reason == "cache" {
		t.Errorf("evicted prefix still matched: %+v", ch)
	}
	ch = mustPick(t, r, textReq("b2", "bbbbbbbbbb", 10), State{Now: 62 * time.Second, Backends: fleet(1, 0, 0)})
	if ch.Backend != 0 || ch.Reason != "cache" {
		t.Errorf("recent prefix lost: %+v", ch)
	}
}

// TestRadixTreeMatchesBruteForce inserts random keys over a small alphabet
// and checks every Backend's match against the longest common prefix with
// any key it was sent, and the size accounting against distinct prefixes.
func TestRadixTreeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tree := newRadixTree[byte](1)
	sent := make([][][]byte, 4)
	randKey := func() []byte {
		k := make([]byte, 1+rng.IntN(12))
		for i := range k {
			k[i] = "abc"[rng.IntN(3)]
		}
		return k
	}
	for i := 0; i < 300; i++ {
		k, b := randKey(), rng.IntN(4)
		tree.insert(k, b, time.Duration(i))
		sent[b] = append(sent[b], k)
	}
	var set backendSet
	set.load(fleet(0, 0, 0, 0))
	for q := 0; q < 300; q++ {
		key := randKey()
		best := make([]int, 4)
		tree.match(key, &set, best)
		for b := 0; b < 4; b++ {
			want := 0
			for _, k := range sent[b] {
				want = max(want, commonPrefix(k, key))
			}
			if best[b] != want {
				t.Fatalf("key %q backend %d: match %d, want %d", key, b, best[b], want)
			}
		}
	}
	for b := 0; b < 4; b++ {
		prefixes := map[string]bool{}
		for _, k := range sent[b] {
			for i := 1; i <= len(k); i++ {
				prefixes[string(k[:i])] = true
			}
		}
		if tree.Size(b) != len(prefixes) {
			t.Errorf("backend %d size %d, want %d distinct prefixes", b, tree.Size(b), len(prefixes))
		}
	}
	tree.evict(5)
	for b := 0; b < 4; b++ {
		if tree.Size(b) > 5 {
			t.Errorf("backend %d holds %d > 5 after eviction", b, tree.Size(b))
		}
	}
}

func TestCacheAwareParamErrors(t *testing.T) {
	for _, tc := range []struct{ k, v string }{{"cache_threshold", "2"}, {"balance_abs", "-1"}, {"balance_rel", "0.5"},
		{"max_tree_chars", "0"}, {"eviction_interval", "0s"}, {"fallback", "random"}} {
		if _, err := NewRouter("cache-aware", Params{tc.k: ReadValue(KindRouter, tc.k, tc.v)}, nil); err == nil || !strings.Contains(err.Error(), "parameter "+tc.k) {
			t.Errorf("%s=%s: error %v", tc.k, tc.v, err)
		}
	}
}
