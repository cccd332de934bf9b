package verdict

import (
	"math"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

func TestKendallTau(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		{"one swap of four", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{"a tie in x", []float64{1, 1, 2}, []float64{1, 2, 3}, 2 / math.Sqrt(2*3)},
		{"NaN pair left out", []float64{1, 2, nan, 3}, []float64{1, 2, 5, 3}, 1},
		{"all tied", []float64{1, 1}, []float64{1, 2}, nan},
		{"one value", []float64{1}, []float64{1}, nan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := KendallTau(tc.x, tc.y)
			if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12) {
				t.Fatalf("KendallTau = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRankAgreementWinners(t *testing.T) {
	row := func(id metrics.MetricID, m, p float64) *Prediction {
		return &Prediction{Rows: []PredictionRow{{ID: id, Metric: id.Label(), Measured: m, Predicted: p}}}
	}
	tests := []struct {
		metric   metrics.MetricID
		preds    []*Prediction
		live     string
		sim      string
		sameWant bool
	}{
		{metrics.MetricTTFTP50, []*Prediction{row(metrics.MetricTTFTP50, 10, 30), row(metrics.MetricTTFTP50, 20, 25)}, "a", "b", false},
		{metrics.MetricServerHitRate, []*Prediction{row(metrics.MetricServerHitRate, 50, 60), row(metrics.MetricServerHitRate, 70, 80)}, "b", "b", true},
		{metrics.MetricTTFTP90, []*Prediction{row(metrics.MetricTTFTP90, math.NaN(), math.NaN()), row(metrics.MetricTTFTP90, math.NaN(), 3)}, "", "b", false},
	}
	for _, tc := range tests {
		t.Run(string(tc.metric), func(t *testing.T) {
			a := RankAgreements([]string{"a", "b"}, tc.preds)[0]
			if a.LiveWinner != tc.live || a.SimWinner != tc.sim || a.Same() != tc.sameWant {
				t.Fatalf("%+v: want live %q sim %q same %v", a, tc.live, tc.sim, tc.sameWant)
			}
		})
	}
}
