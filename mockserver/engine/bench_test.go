package engine

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkStep measures one engine iteration with b sequences decoding
// (and, with churn, requests finishing and new ones arriving with shared
// prefixes): simulated tokens per wall second on one core.
func BenchmarkStep(b *testing.B) {
	for _, tc := range []struct {
		batch, maxTokens int
	}{{8, 4000}, {256, 4000}, {256, 64}} {
		name := fmt.Sprintf("batch=%d/output=%d", tc.batch, tc.maxTokens)
		b.Run(name, func(b *testing.B) {
			e := mustNew(b, DefaultConfig())
			shared := prompt(512, 7)
			next := 0
			refill := func(now time.Duration) {
				for e.Stats().Running+e.Stats().Waiting < tc.batch {
					p := append(append([]int(nil), shared...), prompt(64, next)...)
					r := Request{ID: fmt.Sprint(next), Prompt: p, MaxTokens: tc.maxTokens, IgnoreEOS: true}
					if err := e.Add(now, &r); err != nil {
						b.Fatal(err)
					}
					next++
				}
			}
			var now time.Duration
			refill(now)
			tokens := 0
			for b.Loop() {
				st := e.Step(now)
				now = st.End()
				tokens += st.DecodeSeqs
				if st.DecodeSeqs < tc.batch {
					refill(now)
				}
			}
			b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
