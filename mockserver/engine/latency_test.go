package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestLatencyMean(t *testing.T) {
	m := DefaultLatency()
	tests := []struct {
		name       string
		prefill, b int
		want       time.Duration
	}{
		{"idle", 0, 0, 0},
		{"batch 1: β", 0, 1, 5740 * time.Microsecond},
		{"batch 2: β(1 + γ/2) = 5.74 × 1.158", 0, 2, 6646920 * time.Nanosecond},
		{"batch 256: β(1 + γ·255/256) = 5.74 × 1.314766", 0, 256, 7546755 * time.Nanosecond},
		{"1000 prefill tokens, first token: 100 ms + β", 1000, 1, 105740 * time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := m.Mean(tc.prefill, tc.b)
			if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
				t.Fatalf("Mean(%d, %d) = %v, want %v", tc.prefill, tc.b, got, tc.want)
			}
		})
	}
	if got := LinearLatency().Mean(500, 100); got != 5740*time.Microsecond {
		t.Fatalf("linear: %v, want β whatever the batch and prefill", got)
	}
	// A BLIS-style linear model: c_step + c_prefill·prefill + c_decode·b.
	blis := LatencyModel{StepOverhead: 5 * time.Millisecond, PrefillPerToken: 20 * time.Microsecond, DecodePerToken: 6 * time.Microsecond}
	if got, want := blis.Mean(100, 50), 5*time.Millisecond+2*time.Millisecond+300*time.Microsecond; got != want {
		t.Fatalf("c_decode: Mean(100, 50) = %v, want %v", got, want)
	}
}

func TestJitterKeepsTheMean(t *testing.T) {
	m := DefaultLatency()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	var sum, sq float64
	for range n {
		v := float64(m.sample(rng, 0, 1, 0)) / float64(m.Beta)
		sum += v
		sq += v * v
	}
	mean := sum / n
	cv := math.Sqrt(sq/n-mean*mean) / mean
	if math.Abs(mean-1) > 0.005 || math.Abs(cv-m.Jitter) > 0.005 {
		t.Fatalf("jitter factor mean %.4f cv %.4f, want 1 and %.2f", mean, cv, m.Jitter)
	}
}

func TestLatencyValidate(t *testing.T) {
	bad := []LatencyModel{
		{Beta: -1}, {Gamma: -0.1}, {Jitter: 2}, {PrefillPerToken: -1}, {StepOverhead: -1}, {Gamma: math.NaN()},
		{Beta: -500 * time.Microsecond, DecodePerToken: 400 * time.Microsecond},
		{Beta: -500 * time.Microsecond, DecodePerToken: 1500 * time.Microsecond, Gamma: 0.3},
	}
	for _, m := range bad {
		if m.Validate() == nil {
			t.Errorf("%+v: want error", m)
		}
	}
	// β below 0 with γ 0 and a positive step at batch 1: linear in b.
	ok := LatencyModel{Beta: -500 * time.Microsecond, DecodePerToken: 1500 * time.Microsecond}
	if err := ok.Validate(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
	for b, want := range map[int]time.Duration{1: 1000 * time.Microsecond, 2: 2500 * time.Microsecond, 4: 5500 * time.Microsecond} {
		if got := ok.Mean(0, b); got != want {
			t.Errorf("Mean(0, %d) = %v, want %v", b, got, want)
		}
	}
}
