package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// ProbeSpec is a calibration probe of live servers: the phases of
// ProbePhases, each a closed loop of the least-request router at the
// phase's concurrency, writing one results file per phase for
// calibrate.Load.
type ProbeSpec struct {
	// Targets are the servers' base URLs.
	Targets []string
	// Dir receives the results files, probe-PHASE.jsonl (created).
	Dir string
	// Budget is the longest the probe may run (default 3 min), shared
	// equally by the phases; each phase sends until its share is used.
	Budget time.Duration
	// MaxConcurrency is the highest concurrency per backend (default 32;
	// powers of two from 1), capped by ProbeConcurrency at the fewest
	// llama.cpp slots unless KeepConcurrency is set.
	MaxConcurrency  int
	KeepConcurrency bool
	// MaxPrompt is the longest prompt, in words (default 1536).
	MaxPrompt int
	// Seed seeds the prompts, phase i using Seed+i (0: the clock, so a
	// repeated probe does not hit the prompt cache).
	Seed uint64
	// Client sets how requests are sent (zero value: DefaultClient).
	Client Client
	// Log receives the probe's notes and a line per phase (nil: none).
	Log io.Writer
}

// ProbeResult is what a probe sent.
type ProbeResult struct {
	// Files are the phases' results files, in order.
	Files []string
	// Phases are the phases run with their counts.
	Phases []ProbePhaseResult
}

// ProbePhaseResult counts one phase's requests: OK served, Failed
// failed, Canceled cut off when the phase's share of the budget ended.
type ProbePhaseResult struct {
	ProbePhase
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
func probeDefaults(ps *ProbeSpec) {
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
		ps.Client = DefaultClient()
	}
	if ps.Log == nil {
		ps.Log = io.Discard
	}
}

// Probe runs the calibration probe against ps.Targets. Before the phases
// it reads the targets' slots (llama.cpp), caps the concurrency and,
// against llama.cpp, turns /metrics scraping off: llama-server answers
// /metrics from its task loop, so a scrape of a busy server waits for its
// work and times out, and the fit needs none of its metrics. Each note is
// written once to ps.Log.
func Probe(ctx context.Context, ps ProbeSpec) (*ProbeResult, error) {
	probeDefaults(&ps)
	if err := CheckTargets(ps.Targets); err != nil {
		return nil, err
	}
	if ps.Budget < 10*time.Second || ps.MaxConcurrency < 2 || ps.MaxPrompt < 48 {
		return nil, fieldf("ProbeSpec.Budget", "ProbeSpec.Budget %v, ProbeSpec.MaxConcurrency %d, ProbeSpec.MaxPrompt %d: "+
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
		if ps.MaxConcurrency, why = ProbeConcurrency(ps.MaxConcurrency, slots); why != "" {
			fmt.Fprintf(ps.Log, "calibrate probe: %s (ProbeSpec.KeepConcurrency keeps the asked level)\n", why)
		}
	}
	scrape := !llama
	if llama {
		fmt.Fprintln(ps.Log, "calibrate probe: llama-server answers /metrics from its task loop, so a busy server's scrape times out: "+
			"the probe does not scrape it (the fit needs none of its metrics)")
	}
	phases := ProbePhases(ps.MaxConcurrency, ps.MaxPrompt)
	per := ps.Budget / time.Duration(len(phases))
	res := &ProbeResult{}
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

// StopProbeTimeLimit is the stop reason of a calibration probe phase
// that ran out of its share of the probe's time.
const StopProbeTimeLimit results.StopReason = "probe-phase-time-limit"

// probePhase runs one phase within per and counts its requests.
func probePhase(ctx context.Context, ps ProbeSpec, ph ProbePhase, seed uint64, per time.Duration, scrape bool) (ProbePhaseResult, string, error) {
	pr := ProbePhaseResult{ProbePhase: ph}
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
			return StopProbeTimeLimit
		}
		return ""
	}
	if _, err := Run(ctx, rs); err != nil {
		return pr, "", fmt.Errorf("calibrate probe phase %s: %w", ph.Name, err)
	}
	pr.Wall = time.Since(start)
	return pr, rs.Results, nil
}

// probeSpec is the Run of one phase: its workload at a rate high enough
// that the closed loop of Concurrency × targets requests in flight sets
// the pace, the least-request router, no report output.
func probeSpec(ps ProbeSpec, ph ProbePhase, seed uint64, scrape bool) Spec {
	n := max(16, 6*ph.Concurrency) * probeFill * len(ps.Targets)
	w := DefaultWorkload()
	w.Workload, w.Seed = ph.Workload, seed
	w.WorkloadArgs = append(traces.Params{{Name: "rate", Value: traces.ParamFloat(1000)}, {Name: "requests", Value: traces.ParamInt(n)}}, ph.WorkloadArgs...)
	if ph.Workload == "shared-prefix" {
		w.WorkloadArgs = append(w.WorkloadArgs, traces.Param{Name: "prompts_per_group", Value: traces.ParamInt((n + 2) / 3)})
	}
	p := DefaultPolicy()
	p.Router, p.MaxInflight = "least-request", ph.Concurrency*len(ps.Targets)
	c := ps.Client
	c.Scrape = scrape
	return Spec{Workload: w, Policy: p, Client: c, Report: metrics.DefaultOptions(),
		Backends: ps.Targets, Mode: results.ModeTarget, Quiet: true, ErrOut: ps.Log,
		Results: filepath.Join(ps.Dir, "probe-"+ph.Name+".jsonl")}
}
