package mockserver

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/mockserver/engine"
)

// TestPerSlotCacheOverHTTP runs the mock with llama.cpp's per-slot cache:
// the same 40-token prompt twice reuses 39 tokens (no block rounding, the
// last one recomputed), where the paged cache reuses 32.
func TestPerSlotCacheOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		cache string
		want  []int
	}{
		{engine.CachePerSlot, []int{0, 39}},
		{engine.CachePagedPrefix, []int{0, 32}},
	} {
		t.Run(tc.cache, func(t *testing.T) {
			opts := fastOptions()
			opts.Engine.Cache, opts.Engine.MaxNumSeqs, opts.Engine.SlotSimilarity = tc.cache, 4, engine.DefaultSlotSimilarity
			_, base := startServer(t, opts)
			body := `{"prompt":` + tokenPrompt(40, 2) + `,"max_tokens":3}`
			var cached []int
			for range 2 {
				code, _, b := post(t, base+"/v1/completions", body)
				if code != 200 {
					t.Fatalf("status %d: %s", code, b)
				}
				var r struct {
					Usage usage `json:"usage"`
				}
				if err := json.Unmarshal([]byte(b), &r); err != nil {
					t.Fatal(err)
				}
				cached = append(cached, r.Usage.PromptTokensDetails.CachedTokens)
			}
			if diff := cmp.Diff(tc.want, cached); diff != "" {
				t.Fatalf("cached tokens (-want +got):\n%s", diff)
			}
		})
	}
}
