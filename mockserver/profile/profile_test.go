package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/mockserver/engine"
)

func TestBuiltinsParse(t *testing.T) {
	names := Names()
	if len(names) < 10 {
		t.Fatalf("built-in profiles %v: want at least ten", names)
	}
	for _, n := range names {
		p, err := Builtin(n)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if p.Name != n || p.Description == "" || p.Source == "" || p.FittedOn == "" {
			t.Errorf("%s: name %q, want the file name, and a description, a source and what it was fitted on", n, p.Name)
		}
		if err := p.Config().Validate(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, n := range Names() {
		p, _ := Builtin(n)
		p.Fit = &Fit{Runs: []string{"a.jsonl"}, Requests: 10, Observations: 40,
			Params:    []FitParam{{Name: "beta", Value: 5.7, StdErr: 0.1, Unit: "ms", Identified: true}},
			Residuals: []Residual{{Kind: "tbt", N: 30, RMSMs: 0.2, RelRMS: 0.03}}}
		p.Validation = []Validation{{Run: "live.jsonl", TTFTP50: -2.5, TPOTP50: 0.4, E2EP50: 1.1}}
		data, err := Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(data, "x.yaml")
		if err != nil {
			t.Fatalf("%s: %v\n%s", n, err, data)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Errorf("%s: round trip differs:\n%s", n, diff)
		}
	}
}

func TestPartialFileInheritsDefault(t *testing.T) {
	p, err := Parse([]byte("name: mine\nlatency:\n  beta: 7ms\n"), "mine.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := engine.DefaultConfig()
	want.Latency.Beta = 7e6
	if diff := cmp.Diff(want, p.Config()); diff != "" {
		t.Fatal(diff)
	}
}

func TestReasoningMapsToEngine(t *testing.T) {
	p, err := Parse([]byte("name: r\nreasoning: {share: 0.3, mean_tokens: 200, cv: 0.5, max_tokens: 900}\n"), "r.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := engine.ReasoningConfig{Share: 0.3, MeanTokens: 200, CV: 0.5, MaxTokens: 900}
	if got := p.Config().Reasoning; got != want {
		t.Fatalf("engine reasoning = %+v, want %+v", got, want)
	}
	if back := FromConfig("r", p.Config()).Reasoning; back != p.Reasoning {
		t.Fatalf("FromConfig reasoning = %+v, want %+v", back, p.Reasoning)
	}
	data, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "reasoning:") {
		t.Fatalf("marshalled profile lacks its reasoning:\n%s", data)
	}
	def, _ := Builtin(DefaultName)
	if data, _ := Marshal(def); strings.Contains(string(data), "reasoning") {
		t.Fatalf("a profile without reasoning writes a reasoning section:\n%s", data)
	}
}

func TestBadProfiles(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", "name: x\nlatency:\n  betta: 5ms\n", `p.yaml:3: latency.betta: unknown field "betta"`},
		{"unknown top field", "name: x\nspeed: 3\n", `p.yaml:2: speed: unknown field "speed"`},
		{"negative gamma", "name: x\nlatency:\n  gamma: -1\n", "p.yaml:3: latency.gamma: -1: want ≥ 0"},
		{"negative beta alone", "name: x\nlatency:\n  beta: -0.5ms\n  gamma: 0\n", "latency.beta: -500µs: want ≥ 0, or below 0 with gamma 0"},
		{"negative beta with gamma", "name: x\nlatency:\n  beta: -0.5ms\n  c_decode: 1.5ms\n  gamma: 0.3\n", "latency.beta: -500µs: want ≥ 0, or below 0 with gamma 0"},
		{"jitter over 1", "name: x\nlatency:\n  jitter: 2\n", "p.yaml:3: latency.jitter: 2: want in [0, 1]"},
		{"bare number duration", "name: x\nlatency:\n  beta: 5\n", `p.yaml:3: latency.beta: "5": want a duration`},
		{"wrong kind", "name: x\nengine:\n  max_num_seqs: many\n", "p.yaml:3: engine.max_num_seqs: cannot unmarshal"},
		{"zero blocks", "name: x\nengine:\n  num_gpu_blocks: 0\n", "p.yaml:3: engine.num_gpu_blocks: 0: want ≥ 1"},
		{"cache model", "name: x\nengine:\n  cache: radix\n", "p.yaml:3: engine.cache: radix: want"},
		{"slot similarity", "name: x\nengine:\n  cache: per-slot\n  slot_prompt_similarity: 1.5\n", "p.yaml:4: engine.slot_prompt_similarity: 1.5: want"},
		{"host cache", "name: x\nengine:\n  cache: per-slot\n  host_cache_tokens: -1\n", "p.yaml:4: engine.host_cache_tokens: -1: want"},
		{"batching", "name: x\nengine:\n  batching: dynamic\n", "p.yaml:3: engine.batching: dynamic"},
		{"no name", "latency:\n  beta: 5ms\n", "p.yaml:0: name: missing"},
		{"all zero", "name: x\nlatency:\n  beta: 0s\n  c_prefill: 0s\n", "latency: every cost is 0"},
		{"not a mapping", "- a\n- b\n", "profile p.yaml: want a YAML mapping"},
		{"syntax", "name: [x\n", "p.yaml"},
		{"reasoning share", "name: x\nreasoning:\n  share: 1.5\n  mean_tokens: 10\n", "p.yaml:3: reasoning.share: 1.5: want in [0, 1]"},
		{"reasoning mean", "name: x\nreasoning:\n  share: 0.3\n", "p.yaml:2: reasoning.mean_tokens: 0: want ≥ 1"},
		{"reasoning cv", "name: x\nreasoning:\n  share: 0.3\n  mean_tokens: 10\n  cv: -1\n", "p.yaml:5: reasoning.cv: -1: want in [0, 10]"},
		{"reasoning cap", "name: x\nreasoning:\n  share: 0.3\n  mean_tokens: 10\n  max_tokens: -5\n", "p.yaml:5: reasoning.max_tokens: -5: want ≥ 0"},
		{"negative price", "name: x\ncost_per_hour: -3\n", "p.yaml:2: cost_per_hour: -3: want a price in $/hour, a number ≥ 0"},
		{"price not a number", "name: x\ncost_per_hour: cheap\n", "p.yaml:2: cost_per_hour: cannot unmarshal"},
		{"reasoning unknown", "name: x\nreasoning:\n  sahre: 0.3\n", `p.yaml:3: reasoning.sahre: unknown field "sahre"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "p.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v: want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want one line", err)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	if p, err := Resolve("fast"); err != nil || p.Name != "fast" {
		t.Fatalf("Resolve(fast) = %v, %v", p, err)
	}
	path := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(path, []byte("name: mine\nengine:\n  max_num_seqs: 8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(path)
	if err != nil || p.Engine.MaxNumSeqs != 8 {
		t.Fatalf("Resolve(file) = %+v, %v", p, err)
	}
	if _, err := Resolve("nope"); err == nil || !strings.Contains(err.Error(), "neither a built-in profile") {
		t.Fatalf("Resolve(nope) error %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range Names() {
		data, _ := BuiltinYAML(n)
		f.Add(data)
	}
	f.Add([]byte("name: x\nlatency:\n  beta: 5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "f.yaml")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if err := p.Config().Validate(); err != nil {
			t.Fatalf("accepted profile fails engine validation: %v", err)
		}
	})
}

// TestPerSlotMapsToEngine checks that a per-slot profile reaches the
// engine configuration and comes back.
func TestPerSlotMapsToEngine(t *testing.T) {
	p, err := Parse([]byte("name: x\nengine:\n  cache: per-slot\n  max_num_seqs: 4\n  slot_prompt_similarity: 0.1\n  host_cache_tokens: 1000\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Config()
	if cfg.Cache != engine.CachePerSlot || cfg.SlotSimilarity != 0.1 || cfg.HostCacheTokens != 1000 || cfg.MaxNumSeqs != 4 {
		t.Fatalf("config: cache %q similarity %g host %d seqs %d", cfg.Cache, cfg.SlotSimilarity, cfg.HostCacheTokens, cfg.MaxNumSeqs)
	}
	back := FromConfig("x", cfg)
	if diff := cmp.Diff(p.Engine, back.Engine); diff != "" {
		t.Errorf("engine section after a round trip:\n%s", diff)
	}
}

// TestNegativeBeta accepts β below 0 where the step stays positive at
// batch 1 (γ 0, β + c_decode > 0), as calibrate fits for llama.cpp.
func TestNegativeBeta(t *testing.T) {
	p, err := Parse([]byte("name: x\nlatency:\n  beta: -0.5ms\n  c_decode: 1.5ms\n  gamma: 0\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Config().Latency.Mean(0, 1); got != time.Millisecond {
		t.Fatalf("step at batch 1 %v, want 1ms", got)
	}
}

// TestLlamaCppGammaDefault: a profile with a llamacpp section that leaves
// gamma out gets γ 0 (each ubatch pays β once), not the vLLM-like
// default's 0.316; a gamma it states is kept, and a profile without the
// section keeps the default's.
func TestLlamaCppGammaDefault(t *testing.T) {
	const slots = "engine:\n  cache: per-slot\n  max_num_seqs: 4\n"
	tests := []struct {
		name, yaml string
		want       float64
	}{
		{"llamacpp, gamma left out", "name: x\n" + slots + "llamacpp:\n  split_kv: true\n", 0},
		{"llamacpp, gamma stated", "name: x\n" + slots + "latency:\n  gamma: 0.2\nllamacpp:\n  split_kv: true\n", 0.2},
		{"no llamacpp section", "name: x\n" + slots, engine.DefaultLatency().Gamma},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(tc.yaml), "p.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Latency.Gamma; got != tc.want {
				t.Errorf("gamma %g, want %g", got, tc.want)
			}
		})
	}
}
