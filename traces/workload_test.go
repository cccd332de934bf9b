package traces

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

var update = flag.Bool("update", false, "rewrite golden files")

// generate returns the native bytes of a workload.
func generate(t *testing.T, name string, params map[string]string, seed uint64) []byte {
	t.Helper()
	src, err := newTextWorkload(name, params, seed)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := WriteNative(&b, src); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWorkloadsDeterministic(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			p := map[string]string{"requests": "120"}
			a, b := generate(t, w.Name, p, 7), generate(t, w.Name, p, 7)
			if !bytes.Equal(a, b) {
				t.Fatal("same seed gave different traces")
			}
			if bytes.Equal(a, generate(t, w.Name, p, 8)) {
				t.Error("seeds 7 and 8 gave the same trace")
			}
		})
	}
}

// TestWorkloadInvariants checks what every generator promises: the
// requested count, non-decreasing arrivals, lengths set, prompts whose
// whitespace word count is InputTokens, and sessions whose turns arrive
// in order with each prompt extending the previous one.
func TestWorkloadInvariants(t *testing.T) {
	ws := tokenizer.Whitespace{}
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			src, err := newTextWorkload(w.Name, map[string]string{"requests": "200"}, 3)
			if err != nil {
				t.Fatal(err)
			}
			reqs, err := ReadAll(src)
			if err != nil || len(reqs) != 200 {
				t.Fatalf("%d requests, err %v; want 200", len(reqs), err)
			}
			last := map[string]Request{}
			ids := map[string]bool{}
			for i, r := range reqs {
				if i > 0 && r.Arrival < reqs[i-1].Arrival {
					t.Fatalf("request %d arrives at %v before %v", i, r.Arrival, reqs[i-1].Arrival)
				}
				if ids[r.ID] {
					t.Fatalf("duplicate id %s", r.ID)
				}
				ids[r.ID] = true
				if r.InputTokens < 1 || r.OutputTokens < 1 {
					t.Fatalf("%s: lengths %d/%d", r.ID, r.InputTokens, r.OutputTokens)
				}
				if n := len(ws.Encode(PromptText(&r))); n != r.InputTokens {
					t.Fatalf("%s: %d words, InputTokens %d", r.ID, n, r.InputTokens)
				}
				if joinContents(r.Messages) != r.Prompt {
					t.Fatalf("%s: Prompt is not the messages joined", r.ID)
				}
				if r.Session == "" {
					continue
				}
				if prev, ok := last[r.Session]; ok {
					if r.Turn != prev.Turn+1 || !strings.HasPrefix(r.Prompt, prev.Prompt+"\n") {
						t.Fatalf("%s turn %d does not extend turn %d of its session", r.ID, r.Turn, prev.Turn)
					}
					if len(r.Messages) != len(prev.Messages)+2 || r.User != prev.User {
						t.Fatalf("%s: history of %d messages after %d", r.ID, len(r.Messages), len(prev.Messages))
					}
				} else if r.Turn != 0 {
					t.Fatalf("%s: session %s starts at turn %d", r.ID, r.Session, r.Turn)
				}
				last[r.Session] = r
			}
		})
	}
}

func TestWorkloadErrors(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]string
		want   string
	}{
		{"nope", nil, `unknown workload "nope"`},
		{"mixed", map[string]string{"size": "1"}, `unknown parameter "size"`},
		{"mixed", map[string]string{"rate": "-1"}, `parameter rate="-1": want a number > 0`},
		{"mixed", map[string]string{"turns_min": "4", "turns_max": "2"}, "turns_min=4 is above turns_max=2"},
		{"mixed", map[string]string{"think": "soon"}, `parameter think: "soon" is not a duration`},
		{"shared-prefix", map[string]string{"preset": "vllm"}, `unknown preset "vllm"`},
		{"shared-prefix", map[string]string{"groups": "0"}, `parameter groups="0": want an integer in [1, 1048576]`},
		{"prefix-pool", map[string]string{"p": "1.5"}, `parameter p="1.5": want a number in [0, 1]`},
		{"uniform-lengths", map[string]string{"output_min": "30"}, "output_min=30 is above output_max=20"},
		{"multi-tenant", map[string]string{"heavy_share": "x"}, `parameter heavy_share: "x" is not a float`},
		{"multi-tenant", map[string]string{"system_len": "100000000"}, `parameter system_len="100000000": want an integer in [0, 16777216]`},
		{"multi-turn", map[string]string{"turns_max": "1000"}, `parameter turns_max="1000": want an integer in [1, 256]`},
		{"mixed", map[string]string{"users": "9999999"}, `parameter users="9999999"`},
		{"shared-prefix", map[string]string{"groups": "4096", "prompts_per_group": "4096"}, "groups × prompts_per_group = 16777216: want at most 1048576"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" "+tc.want, func(t *testing.T) {
			_, err := newTextWorkload(tc.name, tc.params, 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSharedPrefix(t *testing.T) {
	src, err := newTextWorkload("shared-prefix", map[string]string{"preset": "sglang", "requests": "2048"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	// SGLang's defaults: 64 groups × 16 prompts, 2048 + 128 input tokens,
	// 256 output; a second round repeats the groups with new questions.
	systems := map[string]int{}
	questions := map[string]bool{}
	for _, r := range reqs {
		if r.InputTokens != 2048+128 || r.OutputTokens != 256 {
			t.Fatalf("%s: lengths %d/%d", r.ID, r.InputTokens, r.OutputTokens)
		}
		systems[r.Messages[0].Content]++
		questions[r.Messages[1].Content] = true
	}
	if len(systems) != 64 || len(questions) != 2048 {
		t.Errorf("%d system prompts, %d questions; want 64 and 2048", len(systems), len(questions))
	}
	for _, n := range systems {
		if n != 32 {
			t.Fatalf("a system prompt is used %d times, want 16 per round", n)
		}
	}
	// Shuffled by default: the first 16 requests are not one group.
	first := map[string]bool{}
	for _, r := range reqs[:16] {
		first[r.Messages[0].Content] = true
	}
	if len(first) < 2 {
		t.Error("requests are not shuffled across groups")
	}
}

func TestMultiTenantShares(t *testing.T) {
	src, _ := newTextWorkload("multi-tenant", map[string]string{"requests": "4000", "heavy_share": "0.5"}, 1)
	reqs, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range reqs {
		per[r.User]++
	}
	// u0 has half the requests; u1 (Zipf rank 1) has more than u7.
	if share := float64(per["u0"]) / 4000; share < 0.47 || share > 0.53 {
		t.Errorf("heavy hitter share %.3f, want about 0.5", share)
	}
	if len(per) != 8 || per["u1"] <= per["u7"] {
		t.Errorf("per-user counts %v: want 8 users with a Zipf tail", per)
	}
}

func TestPrefixPoolProbability(t *testing.T) {
	for _, p := range []string{"0", "0.3", "1"} {
		t.Run("p="+p, func(t *testing.T) {
			src, _ := newTextWorkload("prefix-pool", map[string]string{"p": p, "requests": "2000"}, 1)
			reqs, err := ReadAll(src)
			if err != nil {
				t.Fatal(err)
			}
			pooled := map[string]bool{}
			n := 0
			for _, r := range reqs {
				if r.InputTokens == 32 {
					n++
					pooled[r.Prompt] = true
				} else if r.InputTokens != 15 {
					t.Fatalf("length %d, want 32 (pool) or 15 (random)", r.InputTokens)
				}
			}
			want := map[string]float64{"0": 0, "0.3": 0.3, "1": 1}[p]
			if got := float64(n) / 2000; got < want-0.03 || got > want+0.03 || len(pooled) > 10 {
				t.Errorf("pool share %.3f from %d prompts, want %.1f from at most 10", got, len(pooled), want)
			}
		})
	}
}

func TestUniformLengthsRange(t *testing.T) {
	src, _ := newTextWorkload("uniform-lengths", map[string]string{"requests": "2000"}, 1)
	reqs, _ := ReadAll(src)
	count := map[int]int{}
	for _, r := range reqs {
		count[r.OutputTokens]++
	}
	// Every length 1..20 appears, about 100 times each.
	for n := 1; n <= 20; n++ {
		if count[n] < 60 || count[n] > 140 {
			t.Errorf("output length %d appears %d times, want about 100", n, count[n])
		}
	}
	if len(count) != 20 {
		t.Errorf("%d distinct lengths, want 20", len(count))
	}
}

func TestMixedDefaults(t *testing.T) {
	src, _ := newTextWorkload("mixed", nil, 1)
	st, err := Stats(src)
	if err != nil {
		t.Fatal(err)
	}
	// 300 requests at 6 req/s: about a minute, with users and sessions.
	if st.Requests != 300 || st.Span.Seconds() < 45 || st.Span.Seconds() > 80 || st.Users != 8 || st.MaxTurns < 3 {
		t.Errorf("mixed defaults: %d requests over %v, %d users, at most %d turns", st.Requests, st.Span, st.Users, st.MaxTurns)
	}
}

// TestWorkloadGolden pins the generated bytes of a small mixed workload.
func TestWorkloadGolden(t *testing.T) {
	got := generate(t, "mixed", map[string]string{"requests": "6", "system_len": "4", "question_len": "3", "output_len": "2"}, 1)
	path := filepath.Join("testdata", "mixed-6.golden.jsonl")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("generated trace differs from %s (-want +got):\n%s", path, d)
	}
}

func TestWorkloadSpecsDocumented(t *testing.T) {
	for _, w := range Workloads() {
		if w.Doc == "" {
			t.Errorf("%s has no doc", w.Name)
		}
		for _, p := range w.Params {
			if p.Doc == "" || p.Default == "" {
				t.Errorf("%s.%s lacks a doc or default", w.Name, p.Name)
			}
		}
		for name := range w.Presets {
			if _, err := newTextWorkload(w.Name, map[string]string{"preset": name}, 1); err != nil {
				t.Errorf("preset %s: %v", name, err)
			}
		}
	}
}

// TestWorkloadErrorsStable checks that with several bad parameters the
// error names the same one every time (the first by name), not one a map
// iteration picks.
func TestWorkloadErrorsStable(t *testing.T) {
	p := Params{{"zeta", ParamInt(1)}, {"omega", ParamInt(1)}, {"mu", ParamInt(1)}, {"alpha", ParamInt(1)}}
	for range 32 {
		_, err := NewWorkload("mixed", p, 1)
		if err == nil || !strings.Contains(err.Error(), `unknown parameter "alpha"`) {
			t.Fatalf("error = %v, want it to name alpha, the first unknown parameter by name", err)
		}
	}
}
