package plots

import (
	"fmt"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestHitRatePlotDrawsEveryPrediction: every run's predicted hit rate
// on every backend is drawn as a dot over its bar, also over the outer
// bars of a group, which stand outside the plot's data area.
func TestHitRatePlotDrawsEveryPrediction(t *testing.T) {
	for _, tc := range []struct{ runs, backends int }{{1, 2}, {5, 4}, {3, 8}} {
		t.Run(fmt.Sprintf("%d runs × %d backends", tc.runs, tc.backends), func(t *testing.T) {
			var runs []*metrics.Summary
			for i := range tc.runs {
				s := &metrics.Summary{Header: results.Header{Policy: fmt.Sprint("run", i)}}
				for b := range tc.backends {
					s.Backends = append(s.Backends, metrics.BackendSummary{Index: b, HitRate: 0.5, PredictedHitRate: 0.4})
				}
				runs = append(runs, s)
			}
			fig := hitRatePlot(runs)
			rec := &recorder.Canvas{}
			c := draw.NewCanvas(rec, vg.Inch*7, vg.Inch*4)
			drawGrid(c, fig.grid)
			// Dots are the only filled paths with arcs in the plot area
			// (the legend is drawn apart).
			dots := 0
			for _, a := range rec.Actions {
				if f, ok := a.(*recorder.Fill); ok && hasArc(f.Path) {
					dots++
				}
			}
			if want := tc.runs * tc.backends; dots != want {
				t.Errorf("%d predicted-hit dots drawn, want %d", dots, want)
			}
		})
	}
}

func hasArc(p vg.Path) bool {
	for _, c := range p {
		if c.Type == vg.ArcComp {
			return true
		}
	}
	return false
}
