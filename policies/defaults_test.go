package policies

import (
	"github.com/tracebench/tracebench/traces"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSeedDefaults builds each Router from its defaults (and presets) and
// compares the values it runs with against its source's numbers, so a
// changed default cannot pass unnoticed.
func TestSeedDefaults(t *testing.T) {
	clearPolicyEnv(t)
	type pc struct {
		Tiktoken                bool
		BlockChars, BlockTokens int
		BlockNumber, Imbalance  int
		Factor                  float64
		TTL                     time.Duration
	}
	prefix := func(p Params) pc {
		r := mustRouter(t, "prefix-cache", p, 1).(*prefixCache)
		return pc{r.enc != nil, r.blockChars, r.blockTokens, r.table.capacity, r.imbalance, r.factor, r.table.ttl}
	}
	// Seed (aibrix-prefix-cache-routing.md): character tokenizer, 128 per
	// block (32 tokens on token-exact prompts at 4 characters per token),
	// 200000 blocks, imbalance 16, factor 2; AIBrix's 20-minute TTL.
	if d := cmp.Diff(pc{false, 128, 32, 200000, 16, 2, 20 * time.Minute}, prefix(nil)); d != "" {
		t.Errorf("prefix-cache defaults (-seed +got):\n%s", d)
	}
	// tiktoken: the seed recommends 16 tokens per block.
	if d := cmp.Diff(pc{true, 16, 16, 200000, 16, 2, 20 * time.Minute}, prefix(Params{"tokenizer": traces.ParamString("tiktoken")})); d != "" {
		t.Errorf("prefix-cache tiktoken defaults (-seed +got):\n%s", d)
	}
	// aibrix-code: AIBrix's code defaults, block 4, imbalance 8, factor 1.
	if d := cmp.Diff(pc{false, 4, 1, 200000, 8, 1, 20 * time.Minute}, prefix(Params{"preset": traces.ParamString("aibrix-code")})); d != "" {
		t.Errorf("prefix-cache preset aibrix-code (-AIBrix code +got):\n%s", d)
	}

	// vtc-basic, the seed's table: 5-minute window, 1000/8000 tokens,
	// weights 1/2, max pod load 100, fairness and utilisation weights 1.
	v := mustRouter(t, "vtc-basic", nil, 1).(*vtcBasic)
	gotV := []float64{v.window.Minutes(), v.minTokens, v.maxTokens, v.wIn, v.wOut, v.maxLoad, v.wFair, v.wUtil, v.jitter}
	if d := cmp.Diff([]float64{5, 1000, 8000, 1, 2, 100, 1, 1, 0.1}, gotV); d != "" {
		t.Errorf("vtc-basic defaults (window min, min, max, w_in, w_out, max load, w_fair, w_util, jitter) (-seed +got):\n%s", d)
	}

	// approx-prefix: 64-character chunks, 256 chunks, 31250 blocks per
	// server, weights prefix 3, queue 2, kv 2 (GIE).
	a := mustRouter(t, "approx-prefix", nil, 1).(*approxPrefix)
	gotA := []float64{float64(a.chunkChars), float64(a.maxRun), float64(a.index.defaultCap), a.wPrefix, a.wQ, a.wKV}
	if d := cmp.Diff([]float64{64, 256, 31250, 3, 2, 2}, gotA); d != "" {
		t.Errorf("approx-prefix defaults (chunk, max chunks, capacity, weights) (-GIE +got):\n%s", d)
	}

	// chwbl: 100 characters, 256 virtual nodes, load factor 1.25 (KubeAI).
	c := mustRouter(t, "chwbl", nil, 1).(*chwbl)
	if d := cmp.Diff([]float64{100, 256, 1.25}, []float64{float64(c.prefixChars), float64(c.ring.replication), c.loadFactor}); d != "" {
		t.Errorf("chwbl defaults (-KubeAI +got):\n%s", d)
	}

	// cache-aware: threshold 0.3, balance 64 and 1.5, 2^26 characters,
	// eviction every 60 s (SGLang router).
	ca := mustRouter(t, "cache-aware", nil, 1).(*cacheAware)
	gotC := []float64{ca.threshold, float64(ca.balanceAbs), ca.balanceRel, float64(ca.maxChars), ca.interval.Seconds()}
	if d := cmp.Diff([]float64{0.3, 64, 1.5, 1 << 26, 60}, gotC); d != "" {
		t.Errorf("cache-aware defaults (-SGLang +got):\n%s", d)
	}
}

// TestAIBrixEnvironment: each environment variable the seeds name sets its
// parameter.
func TestAIBrixEnvironment(t *testing.T) {
	tests := []struct {
		env, value string
		router     string
		got        func(Router) float64
		want       float64
	}{
		{"AIBRIX_PREFIX_CACHE_TOKENIZER_TYPE", "tiktoken", "prefix-cache", func(r Router) float64 { return float64(r.(*prefixCache).blockTokens) }, 16},
		{"AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "64", "prefix-cache", func(r Router) float64 { return float64(r.(*prefixCache).blockChars) }, 64},
		{"AIBRIX_PREFIX_CACHE_BLOCK_NUMBER", "1000", "prefix-cache", func(r Router) float64 { return float64(r.(*prefixCache).table.capacity) }, 1000},
		{"AIBRIX_PREFIX_CACHE_POD_RUNNING_REQUEST_IMBALANCE_ABS_COUNT", "4", "prefix-cache", func(r Router) float64 { return float64(r.(*prefixCache).imbalance) }, 4},
		{"AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR", "0.5", "prefix-cache", func(r Router) float64 { return r.(*prefixCache).factor }, 0.5},
		{"AIBRIX_ROUTER_VTC_TOKEN_TRACKER_TIME_UNIT", "seconds", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).window.Seconds() }, 5},
		{"AIBRIX_ROUTER_VTC_TOKEN_TRACKER_WINDOW_SIZE", "2", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).window.Minutes() }, 2},
		{"AIBRIX_ROUTER_VTC_TOKEN_TRACKER_MIN_TOKENS", "500", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).minTokens }, 500},
		{"AIBRIX_ROUTER_VTC_TOKEN_TRACKER_MAX_TOKENS", "9000", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).maxTokens }, 9000},
		{"AIBRIX_ROUTER_VTC_BASIC_INPUT_TOKEN_WEIGHT", "3", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).wIn }, 3},
		{"AIBRIX_ROUTER_VTC_BASIC_OUTPUT_TOKEN_WEIGHT", "4", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).wOut }, 4},
		{"AIBRIX_ROUTER_VTC_BASIC_MAX_POD_LOAD", "50", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).maxLoad }, 50},
		{"AIBRIX_ROUTER_VTC_BASIC_FAIRNESS_WEIGHT", "0.5", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).wFair }, 0.5},
		{"AIBRIX_ROUTER_VTC_BASIC_UTILIZATION_WEIGHT", "2", "vtc-basic", func(r Router) float64 { return r.(*vtcBasic).wUtil }, 2},
	}
	for _, tc := range tests {
		t.Run(tc.env, func(t *testing.T) {
			clearPolicyEnv(t)
			t.Setenv(tc.env, tc.value)
			if got := tc.got(mustRouter(t, tc.router, nil, 1)); got != tc.want {
				t.Errorf("%s=%s: got %g, want %g", tc.env, tc.value, got, tc.want)
			}
		})
	}
}

// TestBadEnvironmentValueNamed: a bad value from the environment fails the
// build naming the parameter and the variable; an explicit parameter
// overrides the environment (and its error is not blamed on it).
func TestBadEnvironmentValueNamed(t *testing.T) {
	tests := []struct {
		name               string
		kind               Kind
		policy, env, value string
		params             Params
		want               []string // error contains each; nil: builds
		absent             string
	}{
		{"router env", KindRouter, "prefix-cache", "AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "zero", nil,
			[]string{"parameter block_size", "environment variable AIBRIX_PREFIX_CACHE_BLOCK_SIZE"}, ""},
		{"queue env", KindQueue, "multi-bin", "B_MAX", "0", nil,
			[]string{"parameter b_max", "environment variable B_MAX"}, ""},
		{"explicit value overrides env", KindRouter, "prefix-cache", "AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "zero",
			Params{"block_size": traces.ParamInt(64)}, nil, ""},
		{"explicit bad value is not the env's", KindRouter, "prefix-cache", "AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "64",
			Params{"block_size": traces.ParamInt(-1)}, []string{"parameter block_size"}, "environment"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clearPolicyEnv(t)
			t.Setenv(tc.env, tc.value)
			var err error
			if tc.kind == KindRouter {
				_, err = NewRouter(tc.policy, tc.params, nil)
			} else {
				_, err = NewQueue(tc.policy, tc.params, nil)
			}
			if tc.want == nil {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.absent != "" && strings.Contains(err.Error(), tc.absent) {
				t.Errorf("error %q mentions %q", err, tc.absent)
			}
		})
	}
}
