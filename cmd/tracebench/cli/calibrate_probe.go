package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
)

// probePhase is one step of the calibration probe: a workload run at a
// fixed concurrency (requests in flight per backend).
type probePhase struct {
	name        string
	concurrency int
	workload    string
	params      []string
}

// decodeFrom is the concurrency from which the probe's unrelated-prompt
// phases decode long outputs after short prompts; a probe whose top
// concurrency is below it is a small server's.
const decodeFrom = 8

// probePhases is the designed probe: unrelated prompts of maxPrompt/48
// to maxPrompt words with 16 to 64 output tokens at concurrency 1, 2 and 4
// (the prompt cost, and decode at small batches), short prompts
// (maxPrompt/48 to maxPrompt/8 words) with long outputs (128 to 256
// tokens) at concurrency 8, 16 and 32 (the batch terms: with long prompts
// the other requests' prefills fill the decode windows and hide how the
// step time grows with the batch), then prompts sharing long system
// prompts (so the cached share varies) at concurrency 4.
//
// A small server (maxConc under decodeFrom, as llama.cpp with 4 slots)
// gets the decode-heavy phases at its own levels (d2, d4), and the shared
// prompts first one at a time (shared-c1): its shared phase at 4 fills
// every slot, so each request there waits on others' prompts, and
// requests that reuse a slot's prompt alone at batch 1 are what separates
// the request overhead from llama.cpp's slot saves (which the unrelated
// prompts pay almost every time).
//
// Each phase sends requests until its share of the budget is used, at
// most probeFill × 6 per unit of concurrency and per backend (and
// probeFill × 16).
func probePhases(maxConc, maxPrompt int) []probePhase {
	small := maxConc < decodeFrom
	var ps []probePhase
	add := func(name string, c, inMax, outMin, outMax int) {
		ps = append(ps, probePhase{name: name + strconv.Itoa(c), concurrency: c, workload: "uniform-lengths",
			params: []string{"input_min=" + strconv.Itoa(max(1, maxPrompt/48)), "input_max=" + strconv.Itoa(inMax),
				"output_min=" + strconv.Itoa(outMin), "output_max=" + strconv.Itoa(outMax)}})
	}
	for c := 1; c <= maxConc; c *= 2 {
		switch {
		case c >= decodeFrom:
			add("c", c, max(1, maxPrompt/8), 128, 256)
		case c >= 2 && small:
			add("c", c, maxPrompt, 16, 64)
			add("d", c, max(1, maxPrompt/8), 128, 256)
		default:
			add("c", c, maxPrompt, 16, 64)
		}
	}
	shared := func(c int) probePhase {
		return probePhase{name: "shared-c" + strconv.Itoa(c), concurrency: c, workload: "shared-prefix",
			params: []string{"groups=3", "system_len=" + strconv.Itoa(max(1, 2*maxPrompt/3)), "question_len=" + strconv.Itoa(max(1, maxPrompt/4)),
				"output_len=32"}}
	}
	if small {
		ps = append(ps, shared(1))
	}
	return append(ps, shared(min(4, maxConc)))
}

// probeConfig sets the probe's shape.
type probeConfig struct {
	budget    time.Duration
	maxConc   int
	maxPrompt int
	seed      uint64
}

// probeFill bounds how many requests a probe phase sends, in units of
// its minimum (6 per unit of concurrency, at least 16): a phase normally
// ends with its share of the budget, since more requests make a surer fit
// (15 prompt-cost requests on a CPU llama.cpp server gave c_prefill
// estimates from 139 to 248 µs per token between runs).
const probeFill = 16

// runProbe runs the probe phases against targets, each within an equal
// share of budget, writing one results file per phase into dir, and
// returns their paths.
func runProbe(ctx context.Context, targets []string, dir string, pc probeConfig, log io.Writer) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("calibrate probe: %w", err)
	}
	phases := probePhases(pc.maxConc, pc.maxPrompt)
	per := pc.budget / time.Duration(len(phases))
	var files []string
	for i, ph := range phases {
		n := max(16, 6*ph.concurrency) * probeFill * len(targets)
		args := []string{"--workload", ph.workload, "--seed", strconv.FormatUint(pc.seed+uint64(i), 10), "-p", "rate=1000", "-p", "requests=" + strconv.Itoa(n)}
		for _, p := range ph.params {
			args = append(args, "-p", p)
		}
		if ph.workload == "shared-prefix" {
			args = append(args, "-p", "prompts_per_group="+strconv.Itoa((n+2)/3))
		}
		rs, err := probeSpec(args, targets, ph.concurrency*len(targets))
		if err != nil {
			return nil, err
		}
		rs.Results = filepath.Join(dir, "probe-"+ph.name+".jsonl")
		rs.ErrOut = log
		start := time.Now()
		rs.OnResult = func(*replay.Result) string {
			if time.Since(start) > per {
				return "probe-phase-time-limit"
			}
			return ""
		}
		sum, err := bench.Run(ctx, rs)
		if err != nil {
			return nil, fmt.Errorf("calibrate probe phase %s: %w", ph.name, err)
		}
		fmt.Fprintf(log, "probe %-10s concurrency %2d: %3d requests ok in %v\n", ph.name, ph.concurrency,
			sum.OK, time.Since(start).Round(100*time.Millisecond))
		files = append(files, rs.Results)
	}
	return files, nil
}

// probeSpec builds a replay of the workload flags args against targets
// with the least-request router, maxInflight requests in flight and
// scraping on.
func probeSpec(args, targets []string, maxInflight int) (runSpec, error) {
	var rs runSpec
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	bindWorkload(fs, &rs.Workload, "uniform-lengths")
	bindPolicy(fs, &rs.Policy, true)
	bindClient(fs, &rs.Client)
	if err := fs.Parse(args); err != nil {
		return rs, fmt.Errorf("calibrate probe: %w", err)
	}
	rs.Policy.Router, rs.Policy.MaxInflight = "least-request", maxInflight
	rs.Client.Scrape = true
	rs.Report = reports.DefaultOptions()
	rs.Backends, rs.Mode, rs.Quiet = targets, "target", true
	return rs, nil
}

// targetSlots returns the slot count of each llama.cpp target (0 for
// other servers).
func targetSlots(ctx context.Context, targets []string) []int {
	out := make([]int, len(targets))
	for i, t := range targets {
		out[i] = bench.LlamaCppSlots(ctx, t)
	}
	return out
}

// probeConcurrency caps the probe's top concurrency at the fewest slots
// of the llama.cpp targets (at least 2): requests beyond a server's slots
// only queue there, and the decode-heavy phases of a small server then
// run at its own levels. It says why when it caps.
func probeConcurrency(maxConc int, slots []int) (int, string) {
	fewest := 0
	for _, s := range slots {
		if s > 0 && (fewest == 0 || s < fewest) {
			fewest = s
		}
	}
	if fewest == 0 || fewest >= maxConc {
		return maxConc, ""
	}
	c := max(2, fewest)
	return c, fmt.Sprintf("calibrate probe: llama.cpp serves %d slots per server: concurrency up to %d (set --probe-max-concurrency to override)", fewest, c)
}
