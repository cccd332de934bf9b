package metrics

import (
	"math"
	"testing"
)

func TestJainIndex(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		{"all equal", []float64{1, 1, 1, 1}, 1},                 // 16 / (4·4)
		{"one holds everything", []float64{1, 0, 0, 0}, 0.25},   // 1 / (4·1)
		{"1 2 3", []float64{1, 2, 3}, 36.0 / 42.0},              // 6² / (3·14)
		{"scale free", []float64{10, 20, 30}, 36.0 / 42.0},      // same shares as 1 2 3
		{"half served", []float64{1, 0.5}, 2.25 / (2 * 1.25)},   // 1.5² / (2·1.25) = 0.9
		{"single user", []float64{0.3}, 1},                      // 0.09 / 0.09
		{"none", nil, math.NaN()},                               // undefined
		{"all zero", []float64{0, 0}, math.NaN()},               // undefined
		{"vtc 1:2 split", []float64{1.0 / 3.0, 2.0 / 3.0}, 0.9}, // 1 / (2·5/9)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JainIndex(tt.x)
			if !sameFloat(got, tt.want, 1e-12) {
				t.Errorf("JainIndex(%v) = %v, want %v", tt.x, got, tt.want)
			}
		})
	}
}

func TestServiceDifference(t *testing.T) {
	tests := []struct {
		name          string
		served, asked []float64
		want          float64
	}{
		// top 10; user 1: min(10−4, 20−4) = 6.
		{"starved user that wanted more", []float64{10, 4}, []float64{10, 20}, 6},
		// user 1 got all it asked: min(6, 0) = 0.
		{"small user fully served", []float64{10, 4}, []float64{10, 4}, 0},
		// user 1: min(6, 1) = 1; user 2: min(3, 13) = 3.
		{"three users", []float64{10, 4, 7}, []float64{12, 5, 20}, 3},
		// every user got more than asked: negative, reported as 0.
		{"over-served", []float64{5, 5}, []float64{1, 1}, 0},
		{"equal service", []float64{3, 3, 3}, []float64{9, 9, 9}, 0},
		{"no users", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServiceDifference(tt.served, tt.asked); !sameFloat(got, tt.want, 1e-12) {
				t.Errorf("ServiceDifference(%v, %v) = %v, want %v", tt.served, tt.asked, got, tt.want)
			}
		})
	}
}

func TestCoefficientOfVariation(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		want float64
	}{
		{"even", []float64{5, 5, 5}, 0},
		{"2 and 4", []float64{2, 4}, 1.0 / 3.0},                   // mean 3, population sd 1
		{"one busy of four", []float64{4, 0, 0, 0}, math.Sqrt(3)}, // mean 1, sd √3
		{"empty", nil, 0},
		{"all idle", []float64{0, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CoefficientOfVariation(tt.x); !sameFloat(got, tt.want, 1e-12) {
				t.Errorf("CoefficientOfVariation(%v) = %v, want %v", tt.x, got, tt.want)
			}
		})
	}
}

// sameFloat compares with an absolute tolerance; two NaNs are equal.
func sameFloat(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}
