package engine

import (
	"fmt"
	"math"
	"testing"
)

func TestReasoningTokensDistribution(t *testing.T) {
	tests := []struct {
		name      string
		cfg       ReasoningConfig
		wantShare float64
		wantMean  float64
		maxLen    int
	}{
		{"off", ReasoningConfig{}, 0, 0, 0},
		{"all, fixed length", ReasoningConfig{Share: 1, MeanTokens: 50}, 1, 50, 50},
		{"30 %, log-normal", ReasoningConfig{Share: 0.3, MeanTokens: 200, CV: 0.5}, 0.3, 200, 0},
		{"capped", ReasoningConfig{Share: 1, MeanTokens: 200, CV: 1, MaxTokens: 150}, 1, 0, 150},
	}
	const n = 20000
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reasons, sum, longest := 0, 0.0, 0
			for i := range n {
				k := tc.cfg.Tokens(mix64(uint64(i) + 1))
				if k < 0 {
					t.Fatalf("negative length %d", k)
				}
				if k > 0 {
					reasons++
					sum += float64(k)
				}
				longest = max(longest, k)
			}
			share := float64(reasons) / n
			if math.Abs(share-tc.wantShare) > 0.015 {
				t.Errorf("share = %.3f, want %.3f", share, tc.wantShare)
			}
			if tc.wantMean > 0 {
				if mean := sum / float64(reasons); math.Abs(mean-tc.wantMean)/tc.wantMean > 0.03 {
					t.Errorf("mean length = %.1f, want %.1f", mean, tc.wantMean)
				}
			}
			if tc.maxLen > 0 && longest != tc.maxLen {
				t.Errorf("longest = %d, want the cap %d", longest, tc.maxLen)
			}
		})
	}
}

func TestReasoningConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  ReasoningConfig
		want bool
	}{
		{ReasoningConfig{}, true},
		{ReasoningConfig{Share: 0.5, MeanTokens: 10, CV: 2, MaxTokens: 100}, true},
		{ReasoningConfig{Share: 1.5, MeanTokens: 10}, false},
		{ReasoningConfig{Share: -0.1, MeanTokens: 10}, false},
		{ReasoningConfig{Share: math.NaN(), MeanTokens: 10}, false},
		{ReasoningConfig{Share: 0.5}, false},
		{ReasoningConfig{Share: 0.5, MeanTokens: math.Inf(1)}, false},
		{ReasoningConfig{Share: 0.5, MeanTokens: 10, CV: -1}, false},
		{ReasoningConfig{Share: 0.5, MeanTokens: 10, MaxTokens: -1}, false},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Reasoning = tc.cfg
			if err := cfg.Validate(); (err == nil) != tc.want {
				t.Fatalf("Validate(%+v) = %v, want ok %v", tc.cfg, err, tc.want)
			}
		})
	}
}

// TestReasoningTokensAreDecodedOutput checks the engine's accounting: a
// reasoning request's first tokens are marked reasoning, the rest are
// not, every one of them is a decoded output token, and a reasoning as
// long as MaxTokens leaves no answer.
func TestReasoningTokensAreDecodedOutput(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Latency.Jitter = 0
	cfg.Reasoning = ReasoningConfig{Share: 1, MeanTokens: 5}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	arr := []arrival{
		{0, Request{ID: "long", Prompt: prompt(40, 1), MaxTokens: 8, IgnoreEOS: true}},
		{0, Request{ID: "short", Prompt: prompt(40, 2), MaxTokens: 3, IgnoreEOS: true}},
	}
	steps := drive(t, e, arr, 100)
	marks := map[string][]bool{}
	ends := map[string]int{}
	for _, st := range steps {
		for _, ev := range st.Events {
			if ev.HasToken {
				marks[ev.ID] = append(marks[ev.ID], ev.Reasoning)
			}
			if ev.ReasoningEnd {
				ends[ev.ID] = ev.NumOutput
			}
		}
	}
	if len(ends) != 1 || ends["long"] != 5 {
		t.Errorf("reasoning ends at %v: want only long's, at its 5th token", ends)
	}
	want := map[string][]bool{
		"long":  {true, true, true, true, true, false, false, false},
		"short": {true, true, true},
	}
	for id, w := range want {
		if fmt.Sprint(marks[id]) != fmt.Sprint(w) {
			t.Errorf("%s reasoning marks = %v, want %v", id, marks[id], w)
		}
	}
	st := e.Stats()
	if st.GenerationTokens != 11 || st.ReasoningTokens != 8 {
		t.Errorf("generation %d, reasoning %d tokens; want 11 and 8", st.GenerationTokens, st.ReasoningTokens)
	}
}
