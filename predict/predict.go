// Package predict predicts measured runs: it rebuilds a run's Spec from
// its results file, replays the same requests on simulated engines of an
// engine profile in virtual time, and compares prediction with
// measurement, one run or a whole bench directory (`tracebench predict`,
// docs/calibrate-predict.md).
package predict

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/calibrate"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces/tokenizer"
	"github.com/tracebench/tracebench/verdict"
)

// Spec predicts one measured run: the same requests, arrival
// times, router, queue and number of backends on simulated engines in
// virtual time with an engine profile, as `tracebench predict` does.
type Spec struct {
	// Live is the measured run's results file. Its header rebuilds the
	// requests (trace file or generator, seed, rate and limits), so a
	// trace must still be at the path the run read.
	Live string
	// Profile is the simulated engines' profile (required).
	Profile *profile.Profile
	// Results is the simulated run's results file (required).
	Results string
	// SimSeed seeds the simulated engines' jitter (default 1).
	SimSeed int64
	// Report holds the SLO the Summaries are computed with (zero fields
	// take metrics.DefaultOptions' values).
	Report metrics.Options
	// After lists earlier runs on the same servers (results files) that
	// the measured run followed: they are replayed first through the
	// profile's engines, so the simulated slots and host prompt cache
	// start as the measured server's did (per-slot profiles only; empty:
	// a cold start).
	After []string
	// ErrOut receives the simulated run's warnings (nil: none).
	ErrOut io.Writer
}

// Result is a prediction against its measurement.
type Result struct {
	// Measured and Predicted are the two runs' Summaries, Prediction
	// their comparison.
	Measured, Predicted *metrics.Summary
	Prediction          *verdict.Prediction
	// Backends is the number of servers the run had (and engines
	// simulated).
	Backends int
	// PromptScale is the server's prompt tokens per simulated one when
	// the simulated prompts were scaled to match (1: not scaled).
	PromptScale float64
	// Notes are warnings about the comparison (a cache model that fits
	// the server loosely, unequal request counts).
	Notes []string
	// LiveSpeed is the prediction again at the live run's own decode
	// speed, nil when the speed check could not be made or found the
	// profile's speed within 5 % (see LiveSpeed).
	LiveSpeed *LiveSpeed
}

// promptScaleTolerance is how far the server's prompt token count may be
// from the simulated one before Predict scales the simulated prompts
// (2 %).
const promptScaleTolerance = 0.02

// Predict simulates ps.Live's run with ps.Profile and compares. A
// profile whose cache model cannot describe the server that served the
// run is refused (see checkCacheModel).
func Predict(ctx context.Context, ps Spec) (*Result, error) {
	if ps.Profile == nil {
		return nil, bench.FieldErrorf("PredictSpec.Profile", "PredictSpec.Profile: give the engine profile to predict with")
	}
	if ps.SimSeed == 0 {
		ps.SimSeed = 1
	}
	rs, h, err := SpecFromResults(ps.Live)
	if err != nil {
		return nil, err
	}
	res := &Result{Backends: len(h.Backends), PromptScale: 1}
	note, err := checkCacheModel(ps.Profile, h, ps.Live)
	if err != nil {
		return nil, err
	}
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	if err := os.MkdirAll(filepath.Dir(ps.Results), 0o755); err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	if res.Measured, err = metrics.Summarize(ps.Live, ps.Report); err != nil {
		return nil, err
	}
	rs.Report, rs.ErrOut, rs.Quiet = ps.Report, ps.ErrOut, true
	engines := ps.Profile.Config()
	engines.Seed = ps.SimSeed
	rs.Mode, rs.Sim, rs.Fleet, rs.Results = results.ModeSim, len(h.Backends), &engines, ps.Results
	cut, cutNote := measuredCut(h, res.Measured.Stop)
	rs.SimCut = cut
	if cutNote != "" {
		res.Notes = append(res.Notes, cutNote)
	}
	if len(ps.After) > 0 {
		if rs.SimWarm, err = calibrate.WarmState(engines, ps.After, RunPrompts); err != nil {
			return nil, fmt.Errorf("PredictSpec.After: %w", err)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("the simulated engines start warm: %d earlier run(s) replayed first (%s)",
			len(ps.After), strings.Join(ps.After, ", ")))
	}
	if err := res.simulate(ctx, rs, ps.Live); err != nil {
		return nil, err
	}
	res.Measured.Header.Policy += " (measured)"
	res.Predicted.Header.Policy += " (predicted, profile " + ps.Profile.Name + ")"
	res.Prediction = verdict.ComparePrediction(ps.Profile.Name, res.Measured, res.Predicted)
	res.Notes = append(res.Notes, comparedNote(res.Measured, res.Predicted))
	ls, err := LoneDecode(ps.Live)
	if err != nil {
		return nil, err
	}
	if speed := speedNote(ls, engines.Latency); speed != "" {
		res.Notes = append(res.Notes, speed)
	}
	if res.LiveSpeed, err = res.atLiveSpeed(ctx, rs, ls, ps.Profile.Name); err != nil {
		return nil, err
	}
	if res.LiveSpeed != nil {
		res.Notes = append(res.Notes, liveSpeedNote(res.LiveSpeed))
	}
	slots, err := slotNote(ps.Live, ps.Results)
	if err != nil {
		return nil, err
	}
	if slots != "" {
		res.Notes = append(res.Notes, slots)
	}
	return res, nil
}

// promptScaled is the simulated engines' tokenizer that gives ratio
// times the prompt tokens the default one does.
func promptScaled(ratio float64) tokenizer.Tokenizer {
	return tokenizer.Scaled{Base: tokenizer.Whitespace{}, Ratio: ratio}
}

// simulate runs rs, and again with prompts scaled to the server's token
// counts when the server tokenised them into more or fewer tokens than
// the simulated engines did.
func (res *Result) simulate(ctx context.Context, rs bench.Spec, live string) error {
	var err error
	if res.Predicted, err = bench.Run(ctx, rs); err != nil {
		return fmt.Errorf("predict: simulated replay: %w", err)
	}
	scale, err := promptScale(live, rs.Results)
	if err != nil || math.Abs(scale-1) <= promptScaleTolerance {
		return err
	}
	rs.SimTokenizer = promptScaled(scale)
	if res.Predicted, err = bench.Run(ctx, rs); err != nil {
		return fmt.Errorf("predict: simulated replay: %w", err)
	}
	res.PromptScale = scale
	return nil
}
