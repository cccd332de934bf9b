package verdict

import (
	"math"
	"testing"

	"github.com/tracebench/tracebench/metrics"
)

func TestPredictionErrors(t *testing.T) {
	m := &metrics.Summary{OK: 10, TTFT: metrics.Dist{Count: 10, P50: 100}, Throughput: metrics.Throughput{Requests: 2}, HitRate: metrics.HitRate{Server: 0.5}}
	q := &metrics.Summary{OK: 10, TTFT: metrics.Dist{Count: 10, P50: 110}, Throughput: metrics.Throughput{Requests: 1.5}, HitRate: metrics.HitRate{Server: 0.4}}
	rows := map[string]PredictionRow{}
	for _, r := range ComparePrediction("p", m, q).Rows {
		rows[r.Metric] = r
	}
	for _, c := range []struct {
		metric string
		want   float64
	}{{"TTFT p50", 10}, {"throughput", -25}, {"server hit rate", -10}, {"TPOT p50", math.NaN()}} {
		got := rows[c.metric].Err
		if math.IsNaN(c.want) != math.IsNaN(got) || (!math.IsNaN(got) && math.Abs(got-c.want) > 1e-9) {
			t.Errorf("%s error %v, want %v", c.metric, got, c.want)
		}
	}
	if rows["TPOT p50"].ErrText() != "n/a" || rows["server hit rate"].ErrText() != "-10.0 pt" {
		t.Errorf("texts %q %q", rows["TPOT p50"].ErrText(), rows["server hit rate"].ErrText())
	}
}

// TestPredictionErr looks a figure's error up by its identity: known
// where both sides have it, not where either lacks it.
func TestPredictionErr(t *testing.T) {
	m := &metrics.Summary{OK: 10, TTFT: metrics.Dist{Count: 10, P50: 100}}
	q := &metrics.Summary{OK: 10, TTFT: metrics.Dist{Count: 10, P50: 110}}
	p := ComparePrediction("p", m, q)
	if e, ok := p.Err(metrics.MetricTTFTP50); !ok || math.Abs(e-10) > 1e-9 {
		t.Errorf("TTFT p50 error %v, %v; want 10, true", e, ok)
	}
	if e, ok := p.Err(metrics.MetricTPOTP50); ok || !math.IsNaN(e) {
		t.Errorf("TPOT p50 error %v, %v; want NaN, false (no TPOT measured)", e, ok)
	}
}
