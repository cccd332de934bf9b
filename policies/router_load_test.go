package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

func TestLoadRouters(t *testing.T) {
	tokensSkew := fleet(2, 2, 2)
	tokensSkew[0].InFlightTokens, tokensSkew[1].InFlightTokens, tokensSkew[2].InFlightTokens = 900, 300, 600
	kv := scraped([]float64{0, 0, 0}, []float64{.7, .2, .5})
	partial := fleet(1, 3, 2) // tokens 100, 300, 200
	partial[1].Scraped, partial[1].KVUsage = true, 0
	tests := []struct {
		name   string
		router string
		params Params
		bs     []Backend
		want   int
		reason string
	}{
		// in-flight {3,1,2}: min 1 at b1.
		{"least-request", "least-request", nil, fleet(3, 1, 2), 1, "least-request"},
		// kv usage {.7,.2,.5}: min .2 at b1.
		{"least-kv-cache scraped", "least-kv-cache", nil, kv, 1, "kv-cache"},
		// b1 scraped (kv 0) but b0, b2 not: fall back to tokens {100,300,200}: b0.
		{"least-kv-cache partial scrape falls back", "least-kv-cache", nil, partial, 0, "in-flight-tokens"},
		// no scrape, tokens {900,300,600}: b1.
		{"least-kv-cache without scrape", "least-kv-cache", nil, tokensSkew, 1, "in-flight-tokens"},
		// two backends, one draw: the only other one.
		{"power-of-two of two picks the lighter", "power-of-two", nil, fleet(5, 1), 1, "two-choices"},
		{"power-of-two single backend", "power-of-two", nil, fleet(7), 0, "only"},
		// metric requests: {2,0} requests beat tokens (b1 tokens set high).
		{"power-of-two by requests", "power-of-two", Params{"metric": traces.ParamString("requests")}, func() []Backend {
			bs := fleet(2, 0)
			bs[1].InFlightTokens = 10000
			return bs
		}(), 1, "two-choices"},
		// metric tokens: b1 has 0 requests but 10000 tokens > b0's 200.
		{"power-of-two by tokens", "power-of-two", nil, func() []Backend {
			bs := fleet(2, 0)
			bs[1].InFlightTokens = 10000
			return bs
		}(), 0, "two-choices"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, tc.router, tc.params, 1)
			ch := mustPick(t, r, textReq("r", "x", 1), State{Backends: tc.bs})
			if diff := cmp.Diff(Choice{Backend: tc.want, Reason: tc.reason}, ch); diff != "" {
				t.Errorf("pick (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPowerOfTwoNeverPicksTheHeaviest: with distinct loads the most loaded
// backend loses every comparison, and every other backend is reachable.
func TestPowerOfTwoNeverPicksTheHeaviest(t *testing.T) {
	r := mustRouter(t, "power-of-two", nil, 3)
	st := State{Backends: fleet(1, 2, 3, 9)}
	seen := map[int]int{}
	for i := 0; i < 2000; i++ {
		seen[mustPick(t, r, textReq("r", "x", 1), st).Backend]++
	}
	if seen[3] != 0 || seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
		t.Errorf("picks per backend %v: want b3 never, b0..b2 sometimes", seen)
	}
	// b0 wins whenever drawn: P = 1 - P(not drawn) = 1 - (3/4)(2/3) = 1/2.
	if seen[0] < 900 || seen[0] > 1100 {
		t.Errorf("b0 picked %d of 2000, want about 1000", seen[0])
	}
}

func TestRoundRobinAndRandom(t *testing.T) {
	rr := mustRouter(t, "round-robin", nil, 1)
	var got []int
	bs := fleet(0, 0, 0)
	for i := 0; i < 5; i++ {
		got = append(got, mustPick(t, rr, textReq("r", "x", 1), State{Backends: bs}).Backend)
	}
	// b1 absent on the 5th pick: after b0 comes b2.
	got = append(got, mustPick(t, rr, textReq("r", "x", 1), State{Backends: []Backend{bs[0], bs[2]}}).Backend)
	if diff := cmp.Diff([]int{0, 1, 2, 0, 1, 2}, got); diff != "" {
		t.Errorf("round-robin order (-want +got):\n%s", diff)
	}
	rnd := mustRouter(t, "random", nil, 1)
	counts := make([]int, 4)
	for i := 0; i < 4000; i++ {
		counts[mustPick(t, rnd, textReq("r", "x", 1), State{Backends: fleet(0, 0, 0, 0)}).Backend]++
	}
	for b, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("random picked b%d %d of 4000 times, want about 1000", b, c)
		}
	}
}

// TestLoadOnlyRoutersPredictHits: Routers that decide without a cache view
// hold no prediction of their own (they are no HitPredictor and leave
// PredictedHitTokens zero); behind the shared HitModel they report the hit
// it expects. One Backend, so
// every pick lands on it: 64 tokens of 16-token blocks (the view's 64
// characters at 4 per token) predict 0 the first time, all 64 the second,
// and 32 for a prompt sharing the first two blocks.
func TestLoadOnlyRoutersPredictHits(t *testing.T) {
	for _, name := range []string{"random", "round-robin", "least-request", "power-of-two", "least-kv-cache", "vtc-basic",
		"chwbl", "session-affinity", "simhash"} {
		t.Run(name, func(t *testing.T) {
			bare := mustRouter(t, name, nil, 1)
			if _, ok := bare.(HitPredictor); ok {
				t.Fatalf("%s is a HitPredictor", name)
			}
			if ch := mustPick(t, bare, blockReq("x", 16, 64, 1, 2, 3, 4), State{Backends: fleet(0)}); ch.PredictedHitTokens != 0 {
				t.Errorf("bare %s predicted %d tokens", name, ch.PredictedHitTokens)
			}
			r := PredictHits(mustRouter(t, name, nil, 1))
			st := State{Backends: fleet(0)}
			var got []int
			for _, req := range []*traces.Request{
				blockReq("a", 16, 64, 1, 2, 3, 4),
				blockReq("b", 16, 64, 1, 2, 3, 4),
				blockReq("c", 16, 64, 1, 2, 8, 9),
			} {
				got = append(got, mustPick(t, r, req, st).PredictedHitTokens)
			}
			if diff := cmp.Diff([]int{0, 64, 32}, got); diff != "" {
				t.Errorf("predicted hit tokens (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHitModelCapacity: a server reporting num_gpu_blocks 2 keeps only the
// last two 16-token blocks of a 4-block prompt, so its first block is gone
// and a repeat predicts no hit; with room for 4 the repeat hits all 64.
func TestHitModelCapacity(t *testing.T) {
	for _, tc := range []struct {
		blocks, want int
	}{{2, 0}, {4, 64}, {0, 64}} { // 0: the default 31,250 blocks
		m := NewHitModel()
		b := Backend{Index: 3, NumGPUBlocks: tc.blocks}
		m.Observe(blockReq("a", 16, 64, 1, 2, 3, 4), b)
		if got := m.Observe(blockReq("b", 16, 64, 1, 2, 3, 4), b); got != tc.want {
			t.Errorf("num_gpu_blocks %d: repeat predicts %d tokens, want %d", tc.blocks, got, tc.want)
		}
	}
}
