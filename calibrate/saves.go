package calibrate

import (
	"fmt"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// savedKey names one request of one backend of one results file.
type savedKey struct {
	path    string
	backend int
	id      string
}

// attachSaves marks each request of in with the tokens llama-server's
// slot-switch save copied when it took its slot (request.saved), as the
// engine places the runs' requests (sets, loadReplay's: every backend's
// requests over every file on one clock at their measured sent times),
// on slots chosen as the server chooses them (longest common prefix
// above the similarity threshold, else least recently used; the slot the
// server named when its replies did), through an engine of start's
// scheduler and cache with the step terms th, the saves priced by th
// too. The server does not report its saves; the step fit needs them as
// equations' terms (colSave, colSaveTok), or they land in the request
// overhead. It returns how many requests saved on each backend (sets'
// order).
func (in *Input) attachSaves(sets []*replaySet, start *profile.Profile, th [numCols]float64) ([]int, error) {
	cfg := saveReplayConfig(start, th)
	saved := map[savedKey]int{}
	per := make([]int, len(sets))
	for b, set := range sets {
		if set == nil || len(set.reqs) == 0 {
			continue
		}
		times, err := replayOn(cfg, set)
		if err != nil {
			return nil, fmt.Errorf("calibrate: place the slot saves: %w", err)
		}
		for i, q := range set.reqs {
			if times[i].saved > 0 {
				saved[savedKey{set.files[q.file], b, q.id}] = times[i].saved
				per[b]++
			}
		}
	}
	for _, tl := range in.timelines {
		for i := range tl.reqs {
			tl.reqs[i].saved = saved[savedKey{tl.path, tl.backend, tl.reqs[i].id}]
		}
	}
	return per, nil
}

// saveReplayConfig is the engine that places the saves: start's, with
// the per-slot cache, the step terms of th (no jitter) and a slot save
// priced by th's save terms; nothing else of llama-server's loop (one
// batch a step, as the step fit models it).
func saveReplayConfig(start *profile.Profile, th [numCols]float64) engine.Config {
	cfg := start.Config()
	cfg.Cache = engine.CachePerSlot
	c := modelOf(th).coef()
	d := func(s float64) time.Duration { return durOf(max(0, s)) }
	cfg.Latency.StepOverhead, cfg.Latency.Jitter = 0, 0
	cfg.Latency.PrefillPerToken, cfg.Latency.DecodePerToken = d(c.Prefill), d(c.Decode)
	cfg.Latency.Beta, cfg.Latency.Gamma = d(c.Beta), max(0, c.Gamma)
	cfg.Latency.AttendPerKey = max(0, th[colAttend]) // ns per key
	cfg.RequestOverhead = d(th[colOverhead])
	cfg.LlamaCpp = engine.LlamaCppConfig{SaveFixed: d(th[colSave]), SavePerToken: d(th[colSaveTok])}
	return cfg
}

// saveSets reads the runs' requests for the save placement once per fit
// (the files and the rebuilt prompts do not change between its passes).
// When they cannot be read it says why in a warning and returns nil: the
// fit goes on without saves.
func (res *Result) saveSets(in *Input, prompts Prompts) []*replaySet {
	sets, _, err := loadReplay(in.Files, prompts)
	if err != nil {
		res.Warnings = append(res.Warnings, "slot saves not fitted ("+err.Error()+"): their time is in request_overhead")
		return nil
	}
	return sets
}

// placeSaves attaches the slot saves under th (attachSaves) and frees the
// save columns when any request saved. It reports whether the fit goes
// on with saves; when they cannot be placed it says why in a warning and
// the fit goes on without them.
func (res *Result) placeSaves(in *Input, sets []*replaySet, start *profile.Profile, th [numCols]float64, free *[numCols]bool) bool {
	per, err := in.attachSaves(sets, start, th)
	n := 0
	for _, k := range per {
		n += k
	}
	res.placed = per
	if err != nil || n == 0 {
		why := "no request's slot choice saved a slot"
		if err != nil {
			why = err.Error()
		}
		res.Warnings = append(res.Warnings, "slot saves not fitted ("+why+"): their time is in request_overhead")
		free[colSave], free[colSaveTok] = false, false
		return false
	}
	fitted := res.logged == nil // priced by the servers' logs: fixed, not fitted
	free[colSave], free[colSaveTok] = fitted, fitted
	return true
}

// withoutSaves is th refitted on rows without the save terms (th itself
// when they were not fitted): the step model the too-noisy diagnosis
// reads the residuals' structure against. A save fitted as an
// equation's term takes up part of a cost serialised on the engine loop
// (the saves' chain, the wait outside the HTTP workers) that only the
// engine replay models; the structure that points at it is the plain
// step model's.
func withoutSaves(rows []row, th [numCols]float64, free [numCols]bool) [numCols]float64 {
	if !free[colSave] && !free[colSaveTok] && th[colSave] == 0 && th[colSaveTok] == 0 {
		return th // no saves in the model
	}
	f, fx := free, th
	f[colSave], f[colSaveTok], fx[colSave], fx[colSaveTok] = false, false, 0, 0
	t2, _, _, err := solve(rows, f, fx)
	if err != nil {
		return th
	}
	return t2
}
