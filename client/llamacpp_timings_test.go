package client

import (
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
)

func TestLlamaCppCachedTokens(t *testing.T) {
	llamacpp, _ := dialect.Lookup(dialect.LlamaCpp)
	for _, tc := range []struct {
		name, chunk string
		want        int
	}{
		{"llama.cpp final chunk", `{"choices":[{"text":"","index":0,"finish_reason":"length"}],"usage":{"completion_tokens":3,"prompt_tokens":7,"total_tokens":10},"timings":{"cache_n":6,"prompt_n":1,"prompt_ms":1.5}}`, 6},
		{"vLLM details win", `{"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":7,"prompt_tokens_details":{"cached_tokens":4}},"timings":{"cache_n":6}}`, 4},
		{"no timings", `{"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":7}}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var u scanStore
			info, err := decodeInfo([]byte(tc.chunk), &u, "chunk")
			if err != nil {
				t.Fatal(err)
			}
			res := &results.Result{}
			st := tokenStats{res: res, now: func() time.Duration { return 0 }, d: llamacpp}
			st.chunk(info)
			if res.CachedTokens != tc.want || res.PromptTokens != 7 {
				t.Fatalf("cached %d prompt %d, want %d and 7", res.CachedTokens, res.PromptTokens, tc.want)
			}
		})
	}
}

// TestLlamaCppServerTimings: the last chunk's timings and id_slot are
// kept on the Result as the server's own figures.
func TestLlamaCppServerTimings(t *testing.T) {
	llamacpp, _ := dialect.Lookup(dialect.LlamaCpp)
	chunk := `{"choices":[],"id_slot":3,"timings":{"cache_n":6,"prompt_n":1,"prompt_ms":1.5,"predicted_n":3,"predicted_ms":20.25}}`
	var u scanStore
	info, err := decodeInfo([]byte(chunk), &u, "chunk")
	if err != nil {
		t.Fatal(err)
	}
	res := &results.Result{}
	st := tokenStats{res: res, now: func() time.Duration { return 0 }, d: llamacpp}
	st.chunk(info)
	want := results.ServerTimings{PromptN: 1, CacheN: 6, PromptMS: 1.5, PredictedN: 3, PredictedMS: 20.25}
	if res.Server == nil || *res.Server != want {
		t.Fatalf("Server = %+v, want %+v", res.Server, want)
	}
	if res.Slot == nil || *res.Slot != 3 {
		t.Fatalf("Slot = %v, want 3", res.Slot)
	}
}
