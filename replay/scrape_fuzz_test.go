package replay

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// FuzzScrape feeds arbitrary text to the /metrics parser: it must not
// panic, must either fail or set OK, and never return NaN figures.
func FuzzScrape(f *testing.F) {
	f.Add([]byte(vllmV1Metrics))
	f.Add([]byte(vllmV0Metrics))
	f.Add([]byte(mockMetrics))
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := parseMetrics(bytes.NewReader(in))
		if err != nil {
			if !reflect.DeepEqual(m, ServerMetrics{}) {
				t.Fatalf("error %v with figures %+v", err, m)
			}
			return
		}
		if !m.OK || m.NumGPUBlocks < 0 {
			t.Fatalf("bad result %+v", m)
		}
		for _, v := range []float64{m.Running, m.Waiting, m.KVUsage, m.PrefixQueries, m.PrefixHits, m.PromptTokens,
			m.GenerationTokens, m.Preemptions, m.StepLateP50, m.StepLateP99, m.StepLateMax, m.MockSteps} {
			if math.IsNaN(v) {
				t.Fatalf("NaN in %+v", m)
			}
		}
	})
}
