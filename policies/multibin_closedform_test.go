package policies

import (
	"math"
	"testing"
)

// qPct rounds a gain to the percentage with one decimal that
// docs/architecture.md states.
func qPct(g float64) float64 { return math.Round(g*1000) / 10 }

func TestMultiBinGainClosedForm(t *testing.T) {
	tests := []struct {
		name string
		gain func() (float64, error)
		want float64
	}{
		// E[max of 8 on [1,20]] = (8·20+1)/9 = 17.889; bins [1,10.5] [10.5,20]:
		// 9.444 and 18.944, mean 14.194 → 17.889/14.194 − 1
		{"continuous B=8 K=2", func() (float64, error) { return MultiBinGainUniform(1, 20, 8, 2) }, 26.0},
		{"continuous B=8 K=4", func() (float64, error) { return MultiBinGainUniform(1, 20, 8, 4) }, 44.9},
		// (128·20+1)/129 = 19.853 over (128·30.5 + 11.5)/258 = 15.176
		{"continuous B=128 K=2", func() (float64, error) { return MultiBinGainUniform(1, 20, 128, 2) }, 30.8},
		{"continuous B=128 K=4", func() (float64, error) { return MultiBinGainUniform(1, 20, 128, 4) }, 54.6},
		{"integer 1..20 B=8 K=2", func() (float64, error) { return MultiBinGainDiscrete(1, 20, 8, EqualCountCuts(1, 20, 2)) }, 27.4},
		{"integer 1..20 B=8 K=4", func() (float64, error) { return MultiBinGainDiscrete(1, 20, 8, EqualCountCuts(1, 20, 4)) }, 48.2},
		{"one bin gains nothing", func() (float64, error) { return MultiBinGainDiscrete(1, 20, 8, nil) }, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.gain()
			if err != nil {
				t.Fatal(err)
			}
			if qPct(g) != tc.want {
				t.Errorf("gain = %.4f (%.1f %%), want %.1f %%", g, qPct(g), tc.want)
			}
		})
	}
}

func TestExpectedMax(t *testing.T) {
	tests := []struct {
		name      string
		got, want float64
	}{
		{"uniform [1,20] B 8: 161/9", ExpectedMaxUniform(1, 20, 8), 161.0 / 9},
		{"uniform B 1 is the mean", ExpectedMaxUniform(2, 4, 1), 3},
		{"one value", ExpectedMaxDiscrete(7, 7, 8), 7},
		{"{1,2} B 1: mean 1.5", ExpectedMaxDiscrete(1, 2, 1), 1.5},
		{"{1,2} B 2: P(max=2) = 3/4 → 1.75", ExpectedMaxDiscrete(1, 2, 2), 1.75},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s: got %g, want %g", tc.name, tc.got, tc.want)
		}
	}
}

func TestClosedFormErrorsAndCuts(t *testing.T) {
	if _, err := MultiBinGainUniform(5, 5, 8, 2); err == nil {
		t.Error("empty interval accepted")
	}
	if _, err := MultiBinGainDiscrete(1, 20, 0, nil); err == nil {
		t.Error("batch size 0 accepted")
	}
	if _, err := MultiBinGainDiscrete(1, 20, 8, []int{11, 11}); err == nil {
		t.Error("empty bin accepted")
	}
	for _, tc := range []struct {
		lo, hi, k int
		want      []int
	}{{1, 20, 2, []int{11}}, {1, 20, 4, []int{6, 11, 16}}, {1, 10, 3, []int{5, 8}}, {1, 20, 1, nil}} {
		got := EqualCountCuts(tc.lo, tc.hi, tc.k)
		if len(got) != len(tc.want) {
			t.Errorf("EqualCountCuts(%d,%d,%d) = %v, want %v", tc.lo, tc.hi, tc.k, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("EqualCountCuts(%d,%d,%d) = %v, want %v", tc.lo, tc.hi, tc.k, got, tc.want)
			}
		}
	}
}
