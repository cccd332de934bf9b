package calibrate

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// Engine replay modes of `calibrate --engine-replay`.
const (
	// ReplayAuto refits by engine replay when a llama.cpp server's probe
	// left the step model's TTFT residuals over maxQuietResidual: the
	// server then did something the step model has no term for.
	ReplayAuto = "auto"
	ReplayOn   = "on"
	ReplayOff  = "off"
)

// replayEvals bounds each Nelder–Mead run of the staged search, in
// replays of the probe (about 2 ms each for 170 requests).
const replayEvals = 1000

// WantsReplay reports whether the mode asks for an engine-replay refit
// of res, fitted on in.
func WantsReplay(mode string, res *Result, in *Input) bool {
	switch mode {
	case ReplayOn:
		return true
	case ReplayOff:
		return false
	}
	if in.Server != "llamacpp" {
		return false
	}
	for _, r := range res.Residuals {
		if r.Kind == "ttft" && r.RelRMS > maxQuietResidual {
			return true
		}
	}
	return false
}

// Refit fits llama.cpp's server terms (engine.LlamaCppConfig) and the
// step terms by replaying the probe's requests, at their measured sent
// times, through the engine the simulator runs, on one clock over every
// file (so each phase starts with the slots the last one left), and
// searching the terms that make the replay's TTFT and time per output
// token match the measured ones: the prompt and save terms on files with
// one request in flight, the batch term on the others, the restore terms
// on files with cached prompts. prompts rebuilds each file's prompts.
// It replaces res's parameters, residuals and profile.
func Refit(res *Result, in *Input, prompts Prompts) error {
	sets, untimed, err := loadReplay(in.Files, prompts)
	if err != nil {
		return err
	}
	if len(sets) == 0 {
		return fmt.Errorf("calibrate: engine replay: no request reached a server")
	}
	start := replayStart(res, in)
	best, ran, err := staged(start, sets, replayEvals, 0, res.loggedTerms())
	if err != nil {
		return fmt.Errorf("calibrate: engine replay: %w", err)
	}
	f := &replayFit{cfg: best, sets: sets}
	if res.Residuals, err = f.relResiduals(); err != nil {
		return fmt.Errorf("calibrate: engine replay: %w", err)
	}
	structure, err := f.phaseTerm()
	if err != nil {
		return fmt.Errorf("calibrate: engine replay: %w", err)
	}
	res.fillReplay(best, ran, stageErrs(best, sets, ran, 0), in, structure)
	if len(untimed) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("fitted without server timings for %d of %d file(s) (%s): "+
			"their requests carry no llama.cpp timings object, so their prompt time is fitted from the client's TTFT alone, "+
			"slot saves and queueing included", len(untimed), len(in.Files), strings.Join(baseNames(untimed), ", ")))
		res.Profile.Fit.Warnings = res.Warnings
	}
	return nil
}

// replayStart is the search's starting point: the step model's prompt
// cost and β, a tenth of β per sequence, and a save, restore and request
// overhead of the order llama-server b7099 showed on a GPU; a split KV
// cache, ubatches of 512 and -np + 2 HTTP workers (llama-server's
// defaults), jitter off (the replay is deterministic).
func replayStart(res *Result, in *Input) engine.Config {
	cfg := res.Profile.Config()
	cfg.Cache = engine.CachePerSlot
	cfg.Latency.Jitter, cfg.Latency.Gamma, cfg.Latency.AttendPerKey = 0, 0, 0
	cfg.Latency.StepOverhead = 0
	cfg.Latency.Beta = max(cfg.Latency.Beta, time.Millisecond)
	cfg.Latency.DecodePerToken = cfg.Latency.Beta / 10
	cfg.Latency.PrefillPerToken = max(cfg.Latency.PrefillPerToken, time.Microsecond)
	cfg.RequestOverhead = time.Millisecond
	cfg.LlamaCpp = engine.LlamaCppConfig{
		SaveFixed: 300 * time.Millisecond, SavePerToken: 100 * time.Microsecond,
		RestoreFixed: 10 * time.Millisecond, RestorePerToken: 10 * time.Microsecond,
		SplitKV: true, UbatchSize: engine.DefaultUbatchSize,
	}
	if in.Slots > 0 {
		cfg.LlamaCpp.HTTPWorkers = in.Slots + 2
	}
	if l := res.logged; l != nil {
		cfg.LlamaCpp.SaveFixed, cfg.LlamaCpp.SavePerToken = durOf(l.Fixed), durOf(l.PerToken)
	}
	return cfg
}

// relResiduals returns the replay's TTFT and per-token residuals over
// every finished request, in the step fit's terms (RMS, and RMS over the
// mean observation).
func (f *replayFit) relResiduals() ([]profile.Residual, error) {
	var out []profile.Residual
	ttft, tpot, _, err := f.pairs(f.cfg)
	if err != nil {
		return nil, err
	}
	for _, k := range []struct {
		kind  string
		pairs [][2]float64
	}{{"ttft", ttft}, {"tbt", tpot}} {
		if len(k.pairs) == 0 {
			continue
		}
		var ss, mean float64
		for _, p := range k.pairs {
			ss += (p[0] - p[1]) * (p[0] - p[1])
			mean += p[1]
		}
		n := float64(len(k.pairs))
		rmsv := math.Sqrt(ss / n)
		out = append(out, profile.Residual{Kind: k.kind, N: len(k.pairs), RMSMs: round3(rmsv * 1e3), RelRMS: round3(rmsv / (mean / n))})
	}
	return out, nil
}

// stageErrs returns the standard error of each term the stages fitted,
// by term index, in the term's units (seconds, or 1), all of them over
// the requests of half (0: every request) of the sets.
func stageErrs(cfg engine.Config, sets []*replaySet, ran []stage, half int) map[int]float64 {
	free := stageTerms(ran)
	f := &replayFit{cfg: cfg, sets: sets, free: free, half: half}
	out := map[int]float64{}
	for k, se := range f.stdErrs() {
		out[free[k]] = se
	}
	return out
}

// stageTerms lists the terms the stages fitted, each once (a term two
// stages move, β, once).
func stageTerms(ran []stage) []int {
	var terms []int
	for _, st := range ran {
		for _, t := range st.terms {
			if !slices.Contains(terms, t) {
				terms = append(terms, t)
			}
		}
	}
	return terms
}

// fillReplay writes the replay's terms and their standard errors (by
// term index, in seconds or 1) into res's parameters and profile.
func (res *Result) fillReplay(cfg engine.Config, ran []stage, se map[int]float64, in *Input, structure string) {
	fitted := map[int]bool{}
	for _, st := range ran {
		for _, t := range st.terms {
			fitted[t] = true
		}
	}
	jitter := res.Profile.Latency.Jitter
	res.Params = res.Params[:0]
	for i, t := range llamaTerms {
		res.Params = append(res.Params, Param{Name: t.name, Value: t.get(cfg) / t.per, StdErr: se[i] / t.per, Unit: t.unit, Identified: fitted[i]})
	}
	if l := res.logged; l != nil { // priced from the servers' logs, not searched
		res.Params[termSaveFixed].StdErr, res.Params[termSaveFixed].Identified = l.FixedSE/llamaTerms[termSaveFixed].per, true
		res.Params[termSavePerToken].StdErr, res.Params[termSavePerToken].Identified = l.PerTokenSE/llamaTerms[termSavePerToken].per, l.PerTokenSE > 0
	}
	res.Params = append(res.Params, Param{Name: "jitter", Value: jitter, Identified: true})
	res.Warnings = slices.DeleteFunc(res.Warnings, func(w string) bool {
		return strings.Contains(w, "too noisy") || strings.Contains(w, "not fitted") || strings.Contains(w, "came out below 0")
	})
	if !fitted[termRestoreFixed] {
		res.Warnings = append(res.Warnings, fmt.Sprintf("the probe showed fewer than %d host-cache restores: "+
			"restore_fixed and restore_per_token are taken equal to the save's (the same copy the other way)", minRestores))
	}
	res.Warnings = append(res.Warnings, fmt.Sprintf("fitted by engine replay: llama-server's slot saves, restores, "+
		"ubatches and HTTP workers were fitted by replaying the probe through the simulator's engine (%d of %d stages "+
		"had requests for their terms); standard errors from the replay's cluster-robust covariance (5 s blocks of each server's requests)", len(ran), len(stages)))
	if w := noiseWarning(res.Residuals, structure, in); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	p := res.Profile
	cfg.Latency.Jitter = jitter
	l := cfg.Latency
	p.Latency.CPrefill, p.Latency.CDecode = profile.Duration(l.PrefillPerToken), profile.Duration(l.DecodePerToken)
	p.Latency.Beta, p.Latency.Gamma, p.Latency.CAttendNs = profile.Duration(l.Beta), 0, 0
	p.Latency.CStep, p.Latency.RequestOverhead = 0, profile.Duration(cfg.RequestOverhead)
	lc := cfg.LlamaCpp
	p.LlamaCpp = &profile.LlamaCpp{SaveFixed: profile.Duration(lc.SaveFixed), SavePerToken: profile.Duration(lc.SavePerToken),
		RestoreFixed: profile.Duration(lc.RestoreFixed), RestorePerToken: profile.Duration(lc.RestorePerToken),
		SplitKV: lc.SplitKV, Ubatch: lc.UbatchSize, HTTPWorkers: lc.HTTPWorkers}
	p.Notes += "; llamacpp terms fitted by engine replay of the probe: split_kv, ubatch and http_workers are " +
		"llama-server's defaults (tell the profile -kvu, -ub and --threads-http if the server was started with them)"
	p.Fit.Params = p.Fit.Params[:0]
	for _, q := range res.Params {
		se := q.StdErr
		if math.IsNaN(se) {
			se = 0 // not computable: the profile keeps no standard error
		}
		p.Fit.Params = append(p.Fit.Params, profile.FitParam{Name: q.Name, Value: round3(q.Value), StdErr: round3(se),
			Unit: q.Unit, Identified: q.Identified})
	}
	p.Fit.Residuals, p.Fit.Warnings = res.Residuals, res.Warnings
}

// baseNames returns the paths' file names.
func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
