package predict

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/mockserver/engine"
)

func TestScaledSteps(t *testing.T) {
	m := engine.LatencyModel{StepOverhead: time.Millisecond, PrefillPerToken: 300 * time.Microsecond,
		DecodePerToken: 2 * time.Millisecond, Beta: 400 * time.Microsecond, AttendPerKey: 100, Gamma: 0.3, Jitter: 0.05}
	want := engine.LatencyModel{StepOverhead: 1500 * time.Microsecond, PrefillPerToken: 450 * time.Microsecond,
		DecodePerToken: 3 * time.Millisecond, Beta: 600 * time.Microsecond, AttendPerKey: 150, Gamma: 0.3, Jitter: 0.05}
	if diff := cmp.Diff(want, scaledSteps(m, 1.5)); diff != "" {
		t.Fatalf("scaledSteps ×1.5 (-want +got):\n%s", diff)
	}
}

// TestAtLiveSpeedNeedsAGap: no second simulation without enough lone
// requests, or when the live run's speed is within 5 % of the profile's.
func TestAtLiveSpeedNeedsAGap(t *testing.T) {
	lat := engine.LatencyModel{Beta: 2 * time.Millisecond}
	tests := []struct {
		name string
		ls   LoneSpeed
	}{
		{"too few lone requests", LoneSpeed{N: minLoneRequests - 1, PerTokenMS: 4}},
		{"speed within 5 %", LoneSpeed{N: 20, PerTokenMS: 2.08}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := engine.DefaultConfig()
			cfg.Latency = lat
			res := &Result{PromptScale: 1}
			got, err := res.atLiveSpeed(t.Context(), benchSpecWith(&cfg), tc.ls, "p")
			if err != nil || got != nil {
				t.Fatalf("atLiveSpeed = %+v, %v; want nil, nil", got, err)
			}
		})
	}
}

// benchSpecWith is a simulated run's Spec on engines of cfg.
func benchSpecWith(cfg *engine.Config) bench.Spec { return bench.Spec{Fleet: cfg} }
