package policies

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces"
)

// Prompts of 4-byte blocks: with block_size 4 the full prompt is 4 blocks.
const (
	pAB   = "aaaabbbb"         // blocks A B
	pABCD = "aaaabbbbccccdddd" // blocks A B C D
	pXYZW = "xxxxyyyyzzzzwwww" // shares nothing with pABCD
)

func TestPrefixCache(t *testing.T) {
	small := Params{"block_size": traces.ParamInt(4)}
	tests := []struct {
		name   string
		params Params
		steps  func(bs []Backend) []step
	}{
		{
			// Seed example: in-flight {p1: 1, p2: 2, p3: 20}: 20-1 = 19 > 16
			// is imbalanced, so least-request picks p1 although p3 holds the
			// whole prompt (its 4 blocks = 16 tokens would have hit).
			name: "seed imbalance example routes to p1", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("warm", pABCD, 16), st: only(bs, 2, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(1, 2, 20)}, want: 0, reason: "imbalance", hit: 0},
				}
			},
		},
		{
			// b1 holds 4/4 blocks = 100 %; loads {3,3,3}: max-min 0 <= 16;
			// mean 3, stddev 0, bound 3 + 2*0 = 3; 3 <= 3 so b1 is taken and
			// all 16 bytes = 16 tokens are predicted to hit.
			name: "full match under equal load", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("warm", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(3, 3, 3)}, want: 1, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// b0 holds A B (2/4 = 50 %), b2 holds A B C D (100 %): highest
			// match% first even though b2 has more in-flight (5 vs 3).
			// mean (3+4+5)/3 = 4, sample sd = sqrt((1+0+1)/2) = 1, bound 4+2*1 = 6 >= 5.
			name: "higher match percent wins", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w0", pAB, 8), st: only(bs, 0, 0), want: -1},
					{req: textReq("w2", pABCD, 16), st: only(bs, 2, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(3, 4, 5)}, want: 2, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// b0 and b1 both hold 100 %; in-flight 4 vs 2: the less loaded b1.
			name: "equal match percent prefers fewer in-flight", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w0", pABCD, 16), st: only(bs, 0, 0), want: -1},
					{req: textReq("w1", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(4, 2, 3)}, want: 1, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// Hot matching backend skipped: loads {0,0,0,9}, prefix on b3.
			// mean 9/4 = 2.25; sample sd = sqrt((3*2.25^2 + 6.75^2)/3) = 4.5.
			// factor 1: bound 2.25 + 4.5 = 6.75 < 9, so b3 is skipped and
			// least-request takes an idle backend (seeded tie-break: b2).
			name: "mean plus stddev filter skips hot match", params: Params{"block_size": traces.ParamInt(4), "std_dev_factor": traces.ParamFloat(1)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w3", pABCD, 16), st: only(bs, 3, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(0, 0, 0, 9)}, want: 2, reason: "least-request", hit: 0},
				}
			},
		},
		{
			// Same loads, default factor 2: bound 2.25 + 2*4.5 = 11.25 >= 9,
			// so the hot b3 keeps the request.
			name: "default factor keeps moderately hot match", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w3", pABCD, 16), st: only(bs, 3, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(0, 0, 0, 9)}, want: 3, reason: "prefix", hit: 16},
				}
			},
		},
		{
			// No backend holds block X: least-request (b2 has 0 in-flight).
			name: "no match falls back to least-request", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w0", pABCD, 16), st: only(bs, 0, 0), want: -1},
					{req: textReq("r", pXYZW, 16), st: State{Backends: fleet(1, 1, 0)}, want: 2, reason: "least-request", hit: 0},
				}
			},
		},
		{
			// Partial match and proportional tokens: b0 holds A B = 8 of the
			// prompt's 16 bytes; the request states 4 tokens, so the predicted
			// hit is 8 * 4 / 16 = 2 tokens.
			name: "partial match predicts proportional tokens", params: small,
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w0", pAB, 2), st: only(bs, 0, 0), want: -1},
					{req: textReq("r", pABCD, 4), st: State{Backends: fleet(0, 0, 0)}, want: 0, reason: "prefix", hit: 2},
				}
			},
		},
		{
			// TTL: the hash added at t=0 is gone 20 min + 1 s later.
			name: "hashes expire after eviction_duration_mins", params: small,
			steps: func(bs []Backend) []step {
				later := 20*time.Minute + time.Second
				return []step{
					{req: textReq("w1", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Now: later, Backends: fleet(0, 1, 1)}, want: 0, reason: "least-request", hit: 0},
				}
			},
		},
		{
			// block_number 2: after A B C D only C D remain (the last two
			// added), so block A misses and nothing matches.
			name: "block_number bounds the index", params: Params{"block_size": traces.ParamInt(4), "block_number": traces.ParamInt(2)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w1", pABCD, 16), st: only(bs, 1, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(0, 1, 1)}, want: 0, reason: "least-request", hit: 0},
				}
			},
		},
		{
			// Token-exact prompt: 16-token block ids, character block 16
			// bytes = 4 tokens. Warm [1 2 9] (48 tokens) on b1; request [1 2 3]
			// of 40 tokens = 10 blocks; blocks 0..7 (tokens 0..31, ids 1 2)
			// match, block 8 (id 3 vs 9) does not: 8*4 = 32 tokens.
			name: "block ids hashed as tokens", params: Params{"block_size": traces.ParamInt(16)},
			steps: func(bs []Backend) []step {
				return []step{
					{req: blockReq("w1", 16, 48, 1, 2, 9), st: only(bs, 1, 0), want: -1},
					{req: blockReq("r", 16, 40, 1, 2, 3), st: State{Backends: fleet(0, 0, 0)}, want: 1, reason: "prefix", hit: 32},
				}
			},
		},
		{
			// Preset aibrix-code: imbalance 8, so {0,0,9} (9 > 8) is
			// imbalanced although the seed's default 16 would not be.
			name: "preset aibrix-code imbalance 8", params: Params{"preset": traces.ParamString("aibrix-code")},
			steps: func(bs []Backend) []step {
				return []step{
					{req: textReq("w2", pABCD, 16), st: only(bs, 2, 0), want: -1},
					{req: textReq("r", pABCD, 16), st: State{Backends: fleet(0, 1, 9)}, want: 0, reason: "imbalance", hit: 0},
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRouter(t, "prefix-cache", tc.params, 1)
			runSteps(t, r, tc.steps(fleet(0, 0, 0, 0)))
		})
	}
}

func TestPrefixCacheLoRAIsolation(t *testing.T) {
	r := mustRouter(t, "prefix-cache", Params{"block_size": traces.ParamInt(4)}, 1)
	bs := fleet(0, 0)
	warm := textReq("w", pABCD, 16)
	warm.LoRA = "adapter-a"
	mustPick(t, r, warm, only(bs, 1, 0))
	other := textReq("r", pABCD, 16)
	other.LoRA = "adapter-b"
	if ch := mustPick(t, r, other, State{Backends: bs}); ch.PredictedHitTokens != 0 || ch.Reason == "prefix" {
		t.Errorf("different adapter matched: %+v", ch)
	}
}

func TestPrefixCacheTiktoken(t *testing.T) {
	r := mustRouter(t, "prefix-cache", Params{"tokenizer": traces.ParamString("tiktoken"), "block_size": traces.ParamInt(2)}, 1)
	bs := fleet(0, 0, 0)
	prompt := strings.Repeat("the quick brown fox jumps over the lazy dog ", 8)
	mustPick(t, r, textReq("w", prompt, 0), only(bs, 2, 0))
	ch := mustPick(t, r, textReq("r", prompt, 0), State{Backends: bs})
	if ch.Backend != 2 || ch.Reason != "prefix" || ch.PredictedHitTokens == 0 {
		t.Errorf("tiktoken pick = %+v, want backend 2 by prefix with a predicted hit", ch)
	}
}

func TestPrefixCacheParamErrors(t *testing.T) {
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{"tokenizer": traces.ParamString("bpe")}, "parameter tokenizer"},
		{Params{"block_size": traces.ParamInt(0)}, "parameter block_size"},
		{Params{"block_number": traces.ParamString("x")}, "parameter block_number"},
		{Params{"imbalance_abs_count": traces.ParamInt(-1)}, "parameter imbalance_abs_count"},
		{Params{"std_dev_factor": traces.ParamFloat(-2)}, "parameter std_dev_factor"},
		{Params{"eviction_duration_mins": traces.ParamInt(0)}, "parameter eviction_duration_mins"},
		{Params{"preset": traces.ParamString("nope")}, "unknown preset"},
		{Params{"blocksize": traces.ParamString("4")}, "unknown parameter"},
	} {
		t.Run(tc.want+"/"+strings.Join(keys(tc.p), ","), func(t *testing.T) {
			_, err := NewRouter("prefix-cache", tc.p, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewRouter(%v) error = %v, want mention of %q", tc.p, err, tc.want)
			}
		})
	}
}

func TestPrefixCacheEnv(t *testing.T) {
	t.Setenv("AIBRIX_PREFIX_CACHE_POD_RUNNING_REQUEST_IMBALANCE_ABS_COUNT", "2")
	r := mustRouter(t, "prefix-cache", Params{"block_size": traces.ParamInt(4)}, 1)
	bs := fleet(0, 0, 3)
	mustPick(t, r, textReq("w", pABCD, 16), only(bs, 2, 0))
	// 3 - 0 > 2 from the environment: imbalanced.
	if ch := mustPick(t, r, textReq("r", pABCD, 16), State{Backends: bs}); ch.Reason != "imbalance" {
		t.Errorf("env imbalance 2 ignored: %+v", ch)
	}
	t.Setenv("AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "zero")
	if _, err := NewRouter("prefix-cache", nil, nil); err == nil || !strings.Contains(err.Error(), "block_size") {
		t.Errorf("bad env block size accepted: %v", err)
	}
}

func keys(p Params) []string {
	var out []string
	for k, v := range p {
		out = append(out, k+"="+v.String())
	}
	return out
}

func TestPromptViewUnits(t *testing.T) {
	tests := []struct {
		name       string
		req        *traces.Request
		kind       promptKind
		units, tok int
		hit40      int // toTokens(40)
	}{
		// 80 bytes stated as 20 tokens: 40 bytes = 10 tokens.
		{"text with stated tokens", textReq("a", strings.Repeat("x", 80), 20), kindText, 80, 20, 10},
		// 80 bytes, no count: 80/4 = 20 tokens estimated; 40 bytes = 10.
		{"text without tokens", textReq("a", strings.Repeat("x", 80), 0), kindText, 80, 20, 10},
		// 3 blocks of 32 cut to 70 tokens: 40 tokens = 40.
		{"block ids cut to input tokens", blockReq("b", 32, 70, 1, 2, 3), kindBlocks, 70, 70, 40},
		// No content: one unique block of 50 tokens.
		{"no content", &traces.Request{ID: "c", InputTokens: 50}, kindBlocks, 50, 50, 40},
		// Token ids.
		{"token ids", &traces.Request{ID: "d", TokenIDs: make([]int, 60)}, kindTokens, 60, 60, 40},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v promptView
			v.load(tc.req)
			got := []int{int(v.kind), v.units, v.reqTokens, v.toTokens(40)}
			if diff := cmp.Diff([]int{int(tc.kind), tc.units, tc.tok, tc.hit40}, got); diff != "" {
				t.Errorf("kind, units, tokens, toTokens(40) (-want +got):\n%s", diff)
			}
		})
	}
	var v promptView
	v.load(textReq("e", "hello world", 0))
	v.setTokens([]int{1, 2}, 0)
	if v.reqTokens != 2 || v.toTokens(1) != 1 {
		t.Errorf("tokenised view without a stated count: %d tokens, toTokens(1) = %d", v.reqTokens, v.toTokens(1))
	}
}
