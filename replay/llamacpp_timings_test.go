package replay

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
