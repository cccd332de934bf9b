package policies

import (
	"github.com/tracebench/tracebench/traces"
	"strings"
	"testing"
)

// scraped returns Backends with scraped waiting queues and KV usage.
func scraped(waiting []float64, kv []float64) []Backend {
	bs := fleet(make([]int, len(waiting))...)
	for i := range bs {
		bs[i].Scraped, bs[i].Waiting, bs[i].KVUsage = true, waiting[i], kv[i]
	}
	return bs
}

func TestApproxPrefix(t *testing.T) {
	chunk4 := Params{"chunk_chars": traces.ParamInt(4)}
	tokenSkew := fleet(1, 1, 2)
	tokenSkew[1].InFlightTokens = 150
	tests := []struct {
		name   string
		params Params
		steps  func(bs []Backend) []step
	}{
		{
			// Equal load {2,2,2}: queue scores 1,1,1 (all equal); kv scores
			// 1-200/200 = 0. b1 holds 4/4 chunks: 3*1 + 2*1 + 2*0 = 5 > 2.
			name: "prefix wins under equal load", params: chunk4,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(2, 2, 2)}, want: 1, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// b1 holds 4/4 but carries {0,4,0}: b1 = 3*1 + 2*0 + 2*0 = 3;
			// b0 = b2 = 0 + 2*1 + 2*1 = 4: the load scores win (seeded tie: b2).
			name: "load outweighs prefix", params: chunk4,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(0, 4, 0)}, want: 2, reason: "load", hit: 0},
				}
			},
		},
		{
			// b1 holds chunk A only: ratio 1/4 = 0.25 >= min_match 0.2.
			// in-flight {1,1,2}, tokens {100,150,200}: queue (2-q)/(2-1) =
			// 1,1,0; kv 1-t/200 = .5,.25,0. b0 = 2+1 = 3; b1 = 3*.25+2+.5 = 3.25.
			name: "partial prefix above min_match", params: Params{"chunk_chars": traces.ParamInt(4), "min_match": traces.ParamFloat(0.2)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", "aaaa", 4), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: tokenSkew}, want: 1, reason: "prefix", hit: 4},
				}
			},
		},
		{
			// Same, min_match 0.5: 0.25 < 0.5 so the prefix score is dropped:
			// b0 = 3 > b1 = 2.5; b1's 4-token match is not counted on b0.
			name: "partial prefix below min_match ignored", params: Params{"chunk_chars": traces.ParamInt(4), "min_match": traces.ParamFloat(0.5)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", "aaaa", 4), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: tokenSkew}, want: 0, reason: "load", hit: 0},
				}
			},
		},
		{
			// Scraped: waiting {0,5,0}, kv {.5,.5,.6}. queue (5-w)/5 = 1,0,1;
			// kv 1-u = .5,.5,.4. b0 = 2+1 = 3; b1 (prefix) = 3+0+1 = 4; b2 = 2.8.
			name: "scraped scores", params: chunk4,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: scraped([]float64{0, 5, 0}, []float64{.5, .5, .6})}, want: 1, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// Same with queue_threshold 5: b1 (5 waiting >= 5) is filtered out
			// first; b0 and b2 queue 1,1; b0 = 2+1 = 3 > b2 = 2+.8 = 2.8.
			name: "queue threshold filters hot backend", params: Params{"chunk_chars": traces.ParamInt(4), "queue_threshold": traces.ParamInt(5)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: scraped([]float64{0, 5, 0}, []float64{.5, .5, .6})}, want: 0, reason: "load", hit: 0},
				}
			},
		},
		{
			// capacity_blocks 2: b1's LRU keeps C D only, so chunk A misses.
			name: "per-backend LRU capacity", params: Params{"chunk_chars": traces.ParamInt(4), "capacity_blocks": traces.ParamInt(2)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(2, 1, 2)}, want: 1, reason: "load", hit: 0},
				}
			},
		},
		{
			// num_gpu_blocks 8 reported by the server overrides capacity 2.
			name: "num_gpu_blocks sizes the LRU", params: Params{"chunk_chars": traces.ParamInt(4), "capacity_blocks": traces.ParamInt(2)},
			steps: func(bs []Backend) []step {
				big := fleet(2, 2, 2)
				big[1].NumGPUBlocks = 8
				return []step{
					{req: textReq("w", pABCD, 16), st: only(big, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: big}, want: 1, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// max_chunks 2: only A B are hashed; full match 2/2 = 8 of 16
			// bytes, 16 tokens * 8/16 = 8 tokens predicted.
			name: "max_chunks caps the match", params: Params{"chunk_chars": traces.ParamInt(4), "max_chunks": traces.ParamInt(2)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(2, 2, 2)}, want: 1, reason: "prefix", hit: 8},
				}
			},
		},
		{
			// Token-exact: 64 chars = 16 tokens per chunk; blocks of 32
			// tokens, [7 8] 64 tokens = 4 chunks; b0 holds [7 9]: chunks 0-1
			// (id 7) match: 2*16 = 32 tokens. Loads equal {1,1}.
			name: "block ids", params: nil,
			steps: func(bs []Backend) []step {
				return []step{
					{req: blockReq("w", 32, 64, 7, 9), st: only(bs, 0, 0), want: -1},
					{req: blockReq("r", 32, 64, 7, 8), st: State{Backends: fleet(1, 1)}, want: 0, reason: "prefix", hit: 32},
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "approx-prefix", tc.params, 1)
			runSteps(t, r, tc.steps(fleet(0, 0, 0)))
		})
	}
}

func TestApproxPrefixLoRA(t *testing.T) {
	r := mustRouter(t, "approx-prefix", Params{"chunk_chars": traces.ParamInt(4)}, 1)
	bs := fleet(2, 2, 2)
	w := textReq("w", pABCD, 16)
	w.LoRA = "sql"
	mustPick(t, r, w, only(bs, 1, 0))
	q := textReq("r", pABCD, 16)
	q.LoRA = "chat"
	if ch := mustPick(t, r, q, State{Backends: bs}); ch.Reason == "prefix" || ch.PredictedHitTokens != 0 {
		t.Errorf("adapter chat matched adapter sql's cache: %+v", ch)
	}
	q.LoRA = "sql"
	if ch := mustPick(t, r, q, State{Backends: bs}); ch.Backend != 1 || ch.Reason != "prefix" {
		t.Errorf("same adapter did not match: %+v", ch)
	}
}

func TestApproxPrefixParamErrors(t *testing.T) {
	for _, name := range []string{"chunk_chars", "max_chunks", "capacity_blocks", "min_match", "prefix_weight", "queue_weight", "kv_weight", "queue_threshold"} {
		t.Run(name, func(t *testing.T) {
			_, err := NewRouter("approx-prefix", Params{name: traces.ParamInt(-1)}, nil)
			if err == nil || !strings.Contains(err.Error(), "parameter "+name) {
				t.Errorf("%s=-1: error %v, want one naming the parameter", name, err)
			}
		})
	}
}
