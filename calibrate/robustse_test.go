package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRobustSE fits y = c_prefill·x + β to rows whose errors are either
// independent or shared by the rows of a cluster: the cluster-robust
// error must match the classical one in the first case. In the second,
// β's true standard error is the shared shock's σ/√G (1/√200 = 0.071):
// the robust error must find it, where the classical one, which takes 20
// rows that move together for 20 independent ones, comes out about half.
func TestRobustSE(t *testing.T) {
	cases := []struct {
		name       string
		shared     float64 // σ of the error a cluster's rows share
		own        float64 // σ of each row's own error
		lo, hi     float64 // bounds on robust / classical
		perCluster int
	}{
		{"independent errors", 0, 1, 0.6, 1.5, 20},
		{"errors shared within a cluster", 1, 0.1, 1.7, 100, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var rows []row
			for g := range 200 {
				shock := tc.shared * rng.NormFloat64()
				for range tc.perCluster {
					var r row
					r.x[colPrefill] = 1 + 10*rng.Float64()
					r.x[colBeta] = 1
					r.y = 2*r.x[colPrefill] + 5 + shock + tc.own*rng.NormFloat64()
					r.w, r.cluster = 1, g
					rows = append(rows, r)
				}
			}
			var free [numCols]bool
			free[colPrefill], free[colBeta] = true, true
			th, se, _, err := solve(rows, free, [numCols]float64{})
			if err != nil {
				t.Fatal(err)
			}
			rob := robustSE(rows, free, th, se)
			ratio := rob[colBeta] / se[colBeta]
			if ratio < tc.lo || ratio > tc.hi {
				t.Fatalf("β: robust %.3g, classical %.3g (ratio %.2f), want a ratio in [%g, %g]", rob[colBeta], se[colBeta], ratio, tc.lo, tc.hi)
			}
			if want := tc.shared / math.Sqrt(200); tc.shared > 0 && math.Abs(rob[colBeta]/want-1) > 0.2 {
				t.Fatalf("β: robust %.3g, want within 20 %% of σ/√G = %.3g", rob[colBeta], want)
			}
			if rob[colOverhead] != 0 {
				t.Fatalf("a fixed column got an error: %g", rob[colOverhead])
			}
		})
	}
}
