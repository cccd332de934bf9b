// Package probe is the calibration probe of live servers (`tracebench
// calibrate --target`): its phases as bench Specs, one results file each,
// for calibrate.Load and calibrate.Fit.
package probe

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// Spec is a calibration probe of live servers: the phases of
// Phases, each a closed loop of the least-request router at the
// phase's concurrency, writing one results file per phase for
// calibrate.Load.
type Spec struct {
	// Targets are the servers' base URLs.
	Targets []string
	// Dir receives the results files, probe-PHASE.jsonl (created).
	Dir string
	// Budget is the longest the probe may run (default 3 min), shared
	// equally by the phases; each phase sends until its share is used.
	Budget time.Duration
	// MaxConcurrency is the highest concurrency per backend (default 32;
	// powers of two from 1), capped by Concurrency at the fewest
	// llama.cpp slots unless KeepConcurrency is set.
	MaxConcurrency  int
	KeepConcurrency bool
	// MaxPrompt is the longest prompt, in words (default 1536).
	MaxPrompt int
	// Seed seeds the prompts, phase i using Seed+i (0: the clock, so a
	// repeated probe does not hit the prompt cache).
	Seed uint64
	// Client sets how requests are sent (zero value: DefaultClient, with
	// llama.cpp's native API when every target is a llama-server: its
	// replies name the slot each request ran on, which the engine replay
	// follows, where the OpenAI-compatible ones do not).
	Client bench.Client
	// Log receives the probe's notes and a line per phase (nil: none).
	Log io.Writer
}

// Result is what a probe sent.
type Result struct {
	// Files are the phases' results files, in order.
	Files []string
	// Phases are the phases run with their counts.
	Phases []PhaseResult
}

// PhaseResult counts one phase's requests: OK served, Failed
// failed, Canceled cut off when the phase's share of the budget ended.
type PhaseResult struct {
	Phase
	OK, Failed, Canceled int
	// Wall is the phase's duration.
	Wall time.Duration
}

// probeFill bounds how many requests a probe phase sends, in units of
// its minimum (6 per unit of concurrency, at least 16): a phase normally
// ends with its share of the budget, since more requests make a surer fit
// (15 prompt-cost requests on a CPU llama.cpp server gave c_prefill
// estimates from 139 to 248 µs per token between runs).
const probeFill = 16

// probeDefaults fills ps's zero fields.
func probeDefaults(ps *Spec) {
	if ps.Budget == 0 {
		ps.Budget = 3 * time.Minute
	}
	if ps.MaxConcurrency == 0 {
		ps.MaxConcurrency = 32
	}
	if ps.MaxPrompt == 0 {
		ps.MaxPrompt = 1536
	}
	if ps.Seed == 0 {
		ps.Seed = uint64(time.Now().UnixNano())
	}
	if ps.Client.API == "" {
		ps.Client = bench.DefaultClient()
	}
	if ps.Log == nil {
		ps.Log = io.Discard
	}
}

// Run runs the calibration probe against ps.Targets. Before the phases
// it reads the targets' slots (llama.cpp), caps the concurrency and,
// against llama.cpp, turns /metrics scraping off: llama-server answers
// /metrics from its task loop, so a scrape of a busy server waits for its
// work and times out, and the fit needs none of its metrics. Each note is
// written once to ps.Log.
func Run(ctx context.Context, ps Spec) (*Result, error) {
	chooseAPI := ps.Client.API == ""
	probeDefaults(&ps)
	if err := bench.CheckTargets(ps.Targets); err != nil {
		return nil, err
	}
	if ps.Budget < 10*time.Second || ps.MaxConcurrency < 2 || ps.MaxPrompt < 48 {
		return nil, bench.FieldErrorf("ProbeSpec.Budget", "ProbeSpec.Budget %v, ProbeSpec.MaxConcurrency %d, ProbeSpec.MaxPrompt %d: "+
			"want at least 10s, 2 and 48",
			ps.Budget, ps.MaxConcurrency, ps.MaxPrompt)
	}
	if err := os.MkdirAll(ps.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("calibrate probe: %w", err)
	}
	slots, llama := make([]int, len(ps.Targets)), false
	for i, t := range ps.Targets {
		slots[i] = LlamaCppSlots(ctx, t)
		llama = llama || slots[i] > 0
	}
	if !ps.KeepConcurrency {
		var why string
		if ps.MaxConcurrency, why = Concurrency(ps.MaxConcurrency, slots); why != "" {
			fmt.Fprintf(ps.Log, "calibrate probe: %s (ProbeSpec.KeepConcurrency keeps the asked level)\n", why)
		}
	}
	if chooseAPI && !slices.Contains(slots, 0) {
		ps.Client.API = client.APINative
		fmt.Fprintln(ps.Log, "calibrate probe: requests go to llama-server's native /completion, whose replies name the slot each ran on")
	}
	scrape := !llama
	if llama {
		fmt.Fprintln(ps.Log, "calibrate probe: llama-server answers /metrics from its task loop, so a busy server's scrape times out: "+
			"the probe does not scrape it (the fit needs none of its metrics)")
	}
	phases := Phases(ps.MaxConcurrency, ps.MaxPrompt)
	if slots[0] > 0 {
		ladder, err := LadderPhase(ps.Dir, slots[0], ps.MaxPrompt, 4*slots[0]*ladderRungs, ps.Seed)
		if err != nil {
			return nil, err
		}
		restore, err := RestorePhase(ps.Dir, slots[0], ps.MaxPrompt, 8*(slots[0]+1), ps.Seed)
		if err != nil {
			return nil, err
		}
		beside, err := BesidePhase(ps.Dir, slots[0], ps.MaxPrompt, 16*slots[0], ps.Seed)
		if err != nil {
			return nil, err
		}
		context, err := ContextPhase(ps.Dir, slots[0], ps.MaxPrompt, 4*slots[0]*contextRungs, ps.Seed)
		if err != nil {
			return nil, err
		}
		phases = append(phases, ladder, restore, beside, context)
		pinned, ok, err := SlotsPhase(ps.Dir, slots[0], ps.MaxPrompt, 16*slots[0], ps.Seed)
		if err != nil {
			return nil, err
		}
		if ok {
			phases = append(phases, pinned)
		}
		phases = append(phases, SaturatedPhase(slots[0], ps.MaxPrompt))
	}
	phases = append(phases, RepeatPhase(phases[0]))
	per := ps.Budget / time.Duration(len(phases))
	res := &Result{}
	for i, ph := range phases {
		pr, file, err := probePhase(ctx, ps, ph, ps.Seed+uint64(i), per, scrape)
		if err != nil {
			return res, err
		}
		fmt.Fprintf(ps.Log, "probe %-10s concurrency %2d: %3d requests ok, %d failed, %d cancelled at the phase's end, in %v\n",
			ph.Name, ph.Concurrency, pr.OK, pr.Failed, pr.Canceled, pr.Wall.Round(100*time.Millisecond))
		res.Files, res.Phases = append(res.Files, file), append(res.Phases, pr)
	}
	return res, nil
}

// StopTimeLimit is the stop reason of a calibration probe phase
// that ran out of its share of the probe's time.
const StopTimeLimit results.StopReason = "probe-phase-time-limit"

// probePhase runs one phase within per and counts its requests.
func probePhase(ctx context.Context, ps Spec, ph Phase, seed uint64, per time.Duration, scrape bool) (PhaseResult, string, error) {
	pr := PhaseResult{Phase: ph}
	rs := probeSpec(ps, ph, seed, scrape)
	start := time.Now()
	var ended atomic.Bool
	rs.OnResult = func(r *results.Result) results.StopReason {
		switch {
		case r.ErrClass == results.ErrCanceled:
			if r.Sent > 0 {
				pr.Canceled++ // one never sent is no request at all
			}
		case r.OK():
			pr.OK++
		default:
			pr.Failed++
		}
		if ended.Load() || time.Since(start) > per {
			ended.Store(true)
			return StopTimeLimit
		}
		return ""
	}
	if _, err := bench.Run(ctx, rs); err != nil {
		return pr, "", fmt.Errorf("calibrate probe phase %s: %w", ph.Name, err)
	}
	pr.Wall = time.Since(start)
	return pr, rs.Results, nil
}

// probeSpec is the Run of one phase: its workload at a rate high enough
// that the closed loop of Concurrency × targets requests in flight sets
// the pace, the least-request router, no report output.
func probeSpec(ps Spec, ph Phase, seed uint64, scrape bool) bench.Spec {
	targets := ps.Targets
	if ph.FirstTarget {
		targets = targets[:1]
	}
	n := max(16, 6*ph.Concurrency) * probeFill * len(targets)
	w := bench.DefaultWorkload()
	w.Workload, w.Seed = ph.Workload, seed
	w.WorkloadArgs = append(traces.Params{{Name: "rate", Value: traces.ParamFloat(1000)}, {Name: "requests", Value: traces.ParamInt(n)}}, ph.WorkloadArgs...)
	if ph.Workload == "shared-prefix" {
		w.WorkloadArgs = append(w.WorkloadArgs, traces.Param{Name: "prompts_per_group", Value: traces.ParamInt((n + 2) / 3)})
	}
	if ph.Trace != "" {
		w.Workload, w.WorkloadArgs = "", nil
		w.Trace, w.Format, w.BlockSize = ph.Trace, ph.Format, ph.BlockSize
		if w.Format == "" {
			w.Format = traces.FormatMooncake
		}
	}
	p := bench.DefaultPolicy()
	p.Router, p.MaxInflight = "least-request", ph.Concurrency*len(targets)
	c := ps.Client
	c.Scrape = scrape
	return bench.Spec{Workload: w, Policy: p, Client: c, Report: metrics.DefaultOptions(),
		Backends: targets, Mode: results.ModeTarget, Quiet: true, ErrOut: ps.Log,
		Results: filepath.Join(ps.Dir, "probe-"+ph.Name+".jsonl")}
}
