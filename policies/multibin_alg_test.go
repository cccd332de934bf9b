package policies

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// mbSeedConfig is the multi-bin default configuration: η = (12 − 4) /
// 1.875e-4 = 42666.67 tokens, L₀ = 4266.67, η − L₀ = 38400.
func mbSeedConfig() mbConfig {
	return mbConfig{MMaxGB: 12, MModelGB: 4, KVMemPerTokenGB: 1.875e-4, BMin: 1, BMax: 128,
		DSLA: 10 * time.Millisecond, EpsD: 5 * time.Millisecond, MaxCandidates: 128}
}

func TestBMemAlgorithm1(t *testing.T) {
	tests := []struct {
		name        string
		prompt, out float64
		bin         int
		binBMax     []int
		bMin, bMax  int
		want        int
	}{
		{"no stats uses 500 tokens: 38400/500 = 76.8", 0, 0, -1, nil, 1, 128, 76},
		{"300+200: 38400/500 = 76.8", 300, 200, -1, nil, 1, 128, 76},
		{"2000+1000: 38400/3000 = 12.8", 2000, 1000, -1, nil, 1, 128, 12},
		{"100+50: 38400/150 = 256, clamped to B_MAX 128", 100, 50, -1, nil, 1, 128, 128},
		{"1e6 tokens: 0.0384 → 0, clamped to B_MIN 1", 5e5, 5e5, -1, nil, 1, 128, 1},
		{"bin 1 limit 8: min(76, 8)", 300, 200, 1, []int{64, 8}, 1, 128, 8},
		{"global bin ignores BIN_B_MAX: 76", 300, 200, -1, []int{64, 8}, 1, 128, 76},
		{"B_MIN 16 B_MAX 32: 76 → 32", 300, 200, -1, nil, 16, 32, 32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mbSeedConfig()
			c.BinBMax, c.BMin, c.BMax = tc.binBMax, tc.bMin, tc.bMax
			if got := bMem(mbStats{avgPrompt: tc.prompt, avgOutput: tc.out}, &c, tc.bin); got != tc.want {
				t.Errorf("b_mem = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestBSLAAlgorithm2(t *testing.T) {
	// D_SLA 10 ms, ε_D 5 ms: case 1 above 15 ms, case 2 below 5 ms.
	type ctl struct{ Low, High, BSLA int }
	tests := []struct {
		name string
		in   mbController
		bMax int
		want ctl
	}{
		{"warm-up: 2 updates → midpoint ⌊(1+128)/2⌋, interval kept",
			mbController{bLow: 1, bHigh: 128, tauAvg: 0.020, bAvg: 60.7, updates: 2}, 128, ctl{1, 128, 64}},
		{"warm-up: τ_avg 0 → midpoint ⌊(40+100)/2⌋",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0, bAvg: 60.7, updates: 9}, 128, ctl{40, 100, 70}},
		{"case 1: high = min(100, max(60, 40+4)) = 60, low = max(40−2, 1) = 38 → ⌊98/2⌋",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.020, bAvg: 60.7, updates: 3}, 128, ctl{38, 60, 49}},
		{"case 1, small b_avg: high = max(10, 44) = 44, low 38 → 41",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.020, bAvg: 10.2, updates: 3}, 128, ctl{38, 44, 41}},
		{"case 2: low = max(40, min(60, 96)) = 60, high = min(102, 128) = 102 → 81",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.002, bAvg: 60.7, updates: 3}, 128, ctl{60, 102, 81}},
		{"case 2 at B_MAX: high = min(129, 128), low 60 → 94",
			mbController{bLow: 40, bHigh: 127, tauAvg: 0.002, bAvg: 60.7, updates: 3}, 128, ctl{60, 128, 94}},
		{"case 3: high = 60+2, low = 60−2 → 60",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.012, bAvg: 60.7, updates: 3}, 128, ctl{58, 62, 60}},
		{"case 3 at the bottom: high 3, low max(−1, 1) = 1 → 2",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.012, bAvg: 1.5, updates: 3}, 128, ctl{1, 3, 2}},
		{"case 3 above B_MAX 8: high 8, low 18 > 8 → low = high = 8",
			mbController{bLow: 1, bHigh: 8, tauAvg: 0.012, bAvg: 20.3, updates: 3}, 8, ctl{8, 8, 8}},
		{"b_SLA ≥ N_decode: case 3 midpoint 60 raised to 70",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.012, bAvg: 60.7, updates: 3, nDecode: 70}, 128, ctl{58, 62, 70}},
		{"exactly D_SLA + ε_D is case 3",
			mbController{bLow: 40, bHigh: 100, tauAvg: 0.015, bAvg: 60.7, updates: 3}, 128, ctl{58, 62, 60}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mbSeedConfig()
			c.BMax = tc.bMax
			k := tc.in
			b := k.bSLA(&c)
			if d := cmp.Diff(tc.want, ctl{k.bLow, k.bHigh, b}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestControllerUpdateAlgorithm7(t *testing.T) {
	var s mbStats
	var k mbController
	d := mbDone{size: 8, avgPrompt: 100, avgOutput: 50, maxOutput: 90, decodeTBT: 12 * time.Millisecond}
	k.update(&s, d)
	// EMA 0.2 from zero: 0.2·100 = 20, 0.2·50 = 10, 0.2·0.012 = 0.0024, 0.2·8 = 1.6
	want1 := []float64{20, 10, 0.0024, 1.6, 1}
	// second: 20 + 0.8·20 = 36, 10 + 0.8·10 = 18, 0.0024 + 0.8·0.0024 = 0.00432, 1.6 + 0.8·1.6 = 2.88
	got1 := []float64{s.avgPrompt, s.avgOutput, k.tauAvg, k.bAvg, float64(k.updates)}
	k.update(&s, d)
	want2 := []float64{36, 18, 0.00432, 2.88, 2}
	got2 := []float64{s.avgPrompt, s.avgOutput, k.tauAvg, k.bAvg, float64(k.updates)}
	approx := cmpopts.EquateApprox(0, 1e-12)
	if diff := cmp.Diff(want1, got1, approx); diff != "" {
		t.Errorf("first update (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want2, got2, approx); diff != "" {
		t.Errorf("second update (-want +got):\n%s", diff)
	}
	// legacy TBT: no measured decode TBT → service 2 s / longest output 100 = 0.02 s
	var s2 mbStats
	var k2 mbController
	k2.update(&s2, mbDone{size: 4, avgPrompt: 1, avgOutput: 1, maxOutput: 100, service: 2 * time.Second, nDecode: 3})
	if math.Abs(k2.tauAvg-0.004) > 1e-12 || k2.nDecode != 3 {
		t.Errorf("legacy τ_avg = %g (want 0.2·0.02 = 0.004), N_decode %d (want 3)", k2.tauAvg, k2.nDecode)
	}
	k2.update(&s2, mbDone{})
	if k2.updates != 1 {
		t.Errorf("an empty batch changed the controller: %d updates", k2.updates)
	}
}
