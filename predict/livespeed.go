package predict

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/verdict"
)

// minSpeedGap is the least relative difference between the live run's
// lone decode and the profile's step of one sequence for which Predict
// also simulates at the live run's speed (5 %).
const minSpeedGap = 0.05

// LiveSpeed is the prediction run again with the profile's step terms
// scaled to the live run's own decode speed: what the errors would be
// had the servers run at the speed the run shows rather than the one
// they were calibrated at. It separates the part of an error that the
// machine's speed explains from the part the engine model does not.
type LiveSpeed struct {
	// Factor multiplies the profile's step terms (c_step, c_prefill,
	// c_decode, β, c_attend): the live lone requests' decode time per
	// token over the profile's step of one sequence at their context.
	Factor float64
	// Prediction compares the measured run with this simulation.
	Prediction *verdict.Prediction
}

// scaledSteps returns m with its time terms multiplied by f (γ and the
// jitter are ratios and stay).
func scaledSteps(m engine.LatencyModel, f float64) engine.LatencyModel {
	scale := func(d time.Duration) time.Duration { return time.Duration(math.Round(float64(d) * f)) }
	m.StepOverhead, m.PrefillPerToken = scale(m.StepOverhead), scale(m.PrefillPerToken)
	m.DecodePerToken, m.Beta = scale(m.DecodePerToken), scale(m.Beta)
	m.AttendPerKey *= f
	return m
}

// atLiveSpeed simulates rs again with its engines' step terms scaled to
// the live run's lone decode (nil when the run has too few lone requests
// with the server's timings, or its speed is within minSpeedGap of the
// profile's). The simulated results go beside rs.Results.
func (res *Result) atLiveSpeed(ctx context.Context, rs bench.Spec, ls LoneSpeed, profileName string) (*LiveSpeed, error) {
	if ls.N < minLoneRequests || rs.Fleet == nil {
		return nil, nil
	}
	step := ls.modelStepMS(rs.Fleet.Latency)
	f := ls.PerTokenMS / step
	if step <= 0 || math.Abs(f-1) < minSpeedGap {
		return nil, nil
	}
	engines := *rs.Fleet
	engines.Latency = scaledSteps(engines.Latency, f)
	rs.Fleet = &engines
	rs.Results = strings.TrimSuffix(rs.Results, ".jsonl") + "-at-live-speed.jsonl"
	if res.PromptScale != 1 {
		rs.SimTokenizer = promptScaled(res.PromptScale)
	}
	sum, err := bench.Run(ctx, rs)
	if err != nil {
		return nil, fmt.Errorf("predict: simulated replay at the live run's speed: %w", err)
	}
	return &LiveSpeed{Factor: f, Prediction: verdict.ComparePrediction(profileName, res.Measured, sum)}, nil
}

// liveSpeedNote says what the prediction at the live run's speed gives
// for the medians of TTFT, TPOT and E2E.
func liveSpeedNote(ls *LiveSpeed) string {
	var parts []string
	for _, id := range []metrics.MetricID{metrics.MetricTTFTP50, metrics.MetricTPOTP50, metrics.MetricE2EP50} {
		if e, ok := ls.Prediction.Err(id); ok {
			parts = append(parts, fmt.Sprintf("%s %+.1f %%", id.Label(), e))
		}
	}
	return fmt.Sprintf("at the live run's speed (the profile's step terms ×%.3g, from the speed check): %s: "+
		"the part of each error the machine's speed explains is the difference from the prediction above",
		ls.Factor, strings.Join(parts, ", "))
}
