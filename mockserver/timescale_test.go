package mockserver

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestTimeScaleStretchesModelTime checks that the driver maps model time
// to wall time through Options.TimeScale: with the linear preset a
// request of n tokens takes n steps of β = 5.74 ms of model time, so its
// last token cannot arrive before n·β·scale of wall time after it was
// sent (deadlines are absolute). At scale 0.05 it must also arrive
// within half of n·β, ten times the scaled time: a loose bound a busy
// machine meets, which a driver ignoring the scale (at least n·β) fails
// (skipped with -short and -race, where that upper bound would measure
// the machine).
func TestTimeScaleStretchesModelTime(t *testing.T) {
	tests := []struct {
		name   string
		scale  float64
		tokens int
		upper  bool // check the wall time against half the unscaled model time
	}{
		{"four times slower", 4, 6, false},
		{"twenty times faster", 0.05, 100, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.upper {
				skipLoad(t)
			}
			opts := fastOptions()
			opts.TimeScale = tc.scale
			_, base := startServer(t, opts)
			body := fmt.Sprintf(`{"prompt":"a b c","max_tokens":%d,"ignore_eos":true,"stream":true}`, tc.tokens)
			start := time.Now()
			_, chunks, err := sse(t, context.Background(), base+"/v1/completions", body)
			if err != nil || len(chunks) != tc.tokens+1 {
				t.Fatalf("%d chunks (%v), want %d tokens and [DONE]", len(chunks), err, tc.tokens)
			}
			wall := chunks[tc.tokens-1].at.Sub(start)
			model := time.Duration(tc.tokens) * opts.Engine.Latency.Beta
			scaled := time.Duration(float64(model) * tc.scale)
			t.Logf("scale %g: %d tokens in %v of wall time; model time %v, scaled %v", tc.scale, tc.tokens, wall, model, scaled)
			if wall < scaled {
				t.Fatalf("last token after %v, before the scaled model time %v", wall, scaled)
			}
			if tc.upper && wall >= model/2 {
				t.Fatalf("last token after %v, not within half the unscaled model time %v", wall, model)
			}
		})
	}
}
