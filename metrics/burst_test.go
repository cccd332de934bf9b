package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

// TestBurstGapWarning checks the burst gap share and its warning by hand:
// one Result whose gaps are given as (µs, count) bins.
func TestBurstGapWarning(t *testing.T) {
	const prefix = "chunks reached the client in bursts"
	tests := []struct {
		name      string
		gaps      []results.GapBin
		wantShare float64
		wantWarn  bool
	}{
		// 60 of 100 gaps at 0 µs: 60 / 100 = 0.6 > 0.25.
		{"client fell behind", []results.GapBin{{V: 0, N: 60}, {V: 7500, N: 40}}, 0.6, true},
		// 30 at 99 µs (under 100) of 100: 0.3 > 0.25.
		{"just under 0.1 ms", []results.GapBin{{V: 99, N: 30}, {V: 7500, N: 70}}, 0.3, true},
		// 100 µs is not a burst: 0 / 100.
		{"at 0.1 ms", []results.GapBin{{V: 100, N: 30}, {V: 7500, N: 70}}, 0, false},
		// 25 of 100: exactly the threshold, no warning.
		{"at the threshold", []results.GapBin{{V: 0, N: 25}, {V: 7500, N: 75}}, 0.25, false},
		// 60 of 99 gaps is a large share but too few gaps to warn.
		{"too few gaps", []results.GapBin{{V: 0, N: 60}, {V: 7500, N: 39}}, 60.0 / 99, false},
		{"steady stream", []results.GapBin{{V: 7500, N: 100}}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n int64
			for _, g := range tt.gaps {
				n += g.N
			}
			h := results.Header{Policy: "p", Router: "p", Queue: "fcfs", Backends: []string{"b0"}}
			a := NewAccumulator(h, DefaultOptions())
			a.Add(&results.Result{Sent: ms1, FirstToken: 10 * ms1, Done: time.Second, PromptTokens: 10,
				CompletionTokens: int(n + 1), Chunks: int(n + 1), Gaps: tt.gaps})
			s := a.Finish(&results.Stop{Reason: "done", Elapsed: time.Second})
			if diff := s.BurstGapShare - tt.wantShare; diff > 1e-12 || diff < -1e-12 {
				t.Errorf("BurstGapShare %v, want %v", s.BurstGapShare, tt.wantShare)
			}
			got := false
			for _, w := range s.Warnings {
				got = got || strings.HasPrefix(w, prefix)
			}
			if got != tt.wantWarn {
				t.Errorf("burst warning %v, want %v (all: %q)", got, tt.wantWarn, s.Warnings)
			}
		})
	}
}
