package calibrate

import (
	"math"
	"slices"

	"github.com/tracebench/tracebench/mockserver/engine"
	"gonum.org/v1/gonum/optimize"
)

// termFloor is the smallest value a term takes in the search (1 ns, or
// 1e-9 of a dimensionless term): log space cannot reach 0.
const termFloor = 1e-9

// replayFit is an engine configuration's fit to the replay sets.
type replayFit struct {
	cfg  engine.Config
	sets []*replaySet
	// only, when set, limits the loss to requests of files of this kind.
	only *fileKind
	// phase, when set, limits the loss further to the files of that
	// probe phase.
	phase string
	// free lists the llamaTerms the search moves (nil: all).
	free []int
	// half, when 1 or 2, limits the loss to the requests of even or odd
	// index in each set's sent order (the replay still runs them all):
	// calibrate --halves fits each half on its own.
	half int
}

// counts reports whether the requests of file (an index of set's files)
// count toward the loss: of kind f.only and phase f.phase where set.
func (f *replayFit) counts(set *replaySet, file int) bool {
	return (f.only == nil || set.kinds[file] == *f.only) && (f.phase == "" || phaseOf(set.files[file]) == f.phase)
}

// inHalf reports whether request i of a set counts toward the loss.
func (f *replayFit) inHalf(i int) bool { return f.half == 0 || i%2 == f.half-1 }

// pairs returns (simulated, measured) seconds of every finished
// request's TTFT and time per output token on an engine of cfg, and of
// its prompt time where the server sent its own (llama.cpp's
// timings.prompt_ms), limited to the files of f.only when it is set.
func (f *replayFit) pairs(cfg engine.Config) (ttft, tpot, prompt [][2]float64, err error) {
	ttft, tpot, prompt, _, err = f.pairsKeyed(cfg)
	return ttft, tpot, prompt, err
}

// pairsKeyed is pairs with each pair's cluster (clusterOf) in keys, one
// list per group in pairs' order.
func (f *replayFit) pairsKeyed(cfg engine.Config) (ttft, tpot, prompt [][2]float64, keys [3][]int, err error) {
	over := cfg.RequestOverhead.Seconds()
	for s, set := range f.sets {
		times, err := replayOn(cfg, set)
		if err != nil {
			return nil, nil, nil, keys, err
		}
		for i, q := range set.reqs {
			t := times[i]
			if !q.ok || t.first == 0 || q.ttft <= 0 || !f.counts(set, q.file) || !f.inHalf(i) {
				continue
			}
			key := clusterOf(s, q.sent)
			ttft = append(ttft, [2]float64{(t.first - q.sent).Seconds() + over, q.ttft})
			keys[0] = append(keys[0], key)
			if q.promptSecs > 0 && t.placed > 0 && t.first > t.placed {
				// The server's own prompt time: the prompt's cost without
				// the saves and queueing the client's TTFT includes.
				prompt = append(prompt, [2]float64{(t.first - t.placed).Seconds(), q.promptSecs})
				keys[2] = append(keys[2], key)
			}
			if q.tpot > 0 && t.done > t.first {
				tpot = append(tpot, [2]float64{(t.done - t.first).Seconds() / float64(q.out-1), q.tpot})
				keys[1] = append(keys[1], key)
			}
		}
	}
	return ttft, tpot, prompt, keys, nil
}

// with returns the configuration with the free terms set from x (log
// values).
func (f *replayFit) with(x []float64) engine.Config {
	cfg := f.cfg
	for k, i := range f.terms() {
		llamaTerms[i].set(&cfg, math.Exp(x[k]))
	}
	return cfg
}

// terms returns the indices of the free terms.
func (f *replayFit) terms() []int {
	if f.free != nil {
		return f.free
	}
	all := make([]int, len(llamaTerms))
	for i := range all {
		all[i] = i
	}
	return all
}

// lossScale is the log ratio at which the loss stops growing as a square
// (0.5: a factor of about 1.65): a request the model cannot describe (the first after
// a server start, one behind an unseen request) weighs little.
const lossScale = 0.5

// loss is the Cauchy loss of the log ratios (TTFT and per-token time
// alike): Σ ln(1 + (r/lossScale)²).
func (f *replayFit) loss(x []float64) float64 {
	ttft, tpot, prompt, err := f.pairs(f.with(x))
	if err != nil || len(ttft) == 0 {
		return math.Inf(1)
	}
	s := 0.0
	for _, p := range slices.Concat(ttft, tpot, prompt) {
		r := math.Log(p[0]) - math.Log(p[1])
		s += math.Log1p(r * r / (lossScale * lossScale))
	}
	return s
}

// search minimises the loss from the configuration's own terms with
// Nelder–Mead, in at most evals replays of the sets.
func (f *replayFit) search(evals int) (engine.Config, error) {
	p := optimize.Problem{Func: f.loss}
	res, err := optimize.Minimize(p, f.x(), &optimize.Settings{FuncEvaluations: evals}, &optimize.NelderMead{})
	if res == nil {
		return f.cfg, err
	}
	return f.with(res.X), nil
}

// logOr is the log of a term's value, floored.
func logOr(v float64) float64 { return math.Log(max(termFloor, v)) }

// Term indices into llamaTerms.
const (
	termPrefill = iota
	termBeta
	termDecode
	termSaveFixed
	termSavePerToken
	termRestoreFixed
	termRestorePerToken
	termOverhead
)

// stage is one step of the staged search: the terms that the requests
// of one kind of file show best.
type stage struct {
	kind  fileKind
	terms []int
	// everyFile puts every file's requests in the stage's loss, not only
	// those of kind (the stage runs only when files of kind exist).
	everyFile bool
	// phase, when set, puts only the files of that probe phase in the
	// stage's loss.
	phase string
}

// stages fit the prompt and save terms where few requests overlap, then
// the batch growth where many decode, then the restore terms where
// prompts were cached.
var stages = []stage{
	{kind: kindPrompt, terms: []int{termPrefill, termBeta, termSaveFixed, termSavePerToken, termOverhead}},
	{kind: kindDecode, terms: []int{termDecode}},
	{kind: kindCached, terms: []int{termRestoreFixed, termRestorePerToken}},
}

// stagesFor are the stages for sets: with a pinned-slot phase (probe
// "slots") the decode stage moves β again beside c_decode, since the
// pinned slots' consecutive and alternate runs tell a ubatch's fixed cost
// from the per-sequence one (moving c_decode alone, a mock with β 3 ms
// and c_decode 1 ms fitted 3.6 and 0.62; with β, 2.87 and 1.02). The
// stage's loss then covers every file: β also sets a lone request's
// step, and with the decode files alone the CPU llama-server's fit went
// to β 6.4 ms and c_decode 64 µs, fitting four decoders and missing one
// by a factor of 3. Without that phase the two trade for each other
// (on the recorded H100 probe β went from 6.0 to 8.1 ms and the fit fell
// apart), so β stays the prompt stage's.
func stagesFor(sets []*replaySet) []stage {
	out := slices.Clone(stages)
	for _, set := range sets {
		for i, f := range set.files {
			switch phaseOf(f) {
			case slotsPhase:
				out[1].terms, out[1].everyFile = []int{termBeta, termDecode}, true
			case restorePhase:
				if set.kinds[i] == kindCached { // it restored
					out[2].phase = restorePhase
				}
			}
		}
	}
	return out
}

// slotsPhase is the name of the probe's pinned-slot phase (its results
// file probe-slots.jsonl).
const slotsPhase = "slots"

// restorePhase is the name of the probe's restore phase: where it ran,
// the restore stage fits its terms on it alone. Elsewhere a cached
// request's slot (which a server's OpenAI-compatible replies do not
// name) can differ in the replay: a prefix the live server found in a
// slot is restored from host memory in the replay, or the other way.
const restorePhase = "restore"

// without is st with the terms in fixed left out.
func (st stage) without(fixed []int) stage {
	st.terms = slices.DeleteFunc(slices.Clone(st.terms), func(t int) bool { return slices.Contains(fixed, t) })
	return st
}

// staged runs the stages in order, each from the last one's result, in
// at most evals replays each, on the requests of half (0: all; see
// replayFit.half); a stage whose kind has no requests is skipped, and
// the terms in fixed (measured elsewhere: the saves priced from the
// servers' logs) keep cfg's values. It returns the configuration and the
// stages that ran.
func staged(cfg engine.Config, sets []*replaySet, evals, half int, fixed []int) (engine.Config, []stage, error) {
	var ran []stage
	for _, st := range stagesFor(sets) {
		if st = st.without(fixed); len(st.terms) == 0 {
			continue
		}
		k := st.kind
		f := &replayFit{cfg: cfg, sets: sets, only: &k, phase: st.phase, free: st.terms, half: half}
		if !f.has(k) {
			continue
		}
		if st.everyFile {
			f.only = nil
		}
		if k == kindCached {
			n, err := restores(cfg, sets)
			if err != nil {
				return cfg, ran, err
			}
			if n < minRestores {
				cfg = restoreAsSave(cfg)
				continue
			}
		}
		best, err := f.multiStart(evals)
		if err != nil {
			return cfg, ran, err
		}
		cfg = best
		ran = append(ran, st)
	}
	return cfg, ran, nil
}

// decadeFactors are the factors gridStart tries on each gridded term.
var decadeFactors = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10}

// gridded are the terms gridStart moves: the slot save's and restore's,
// whose starting values are a constant (replayStart's); the others start
// from the step fit of the same probe.
var gridded = map[int]bool{termSaveFixed: true, termSavePerToken: true, termRestoreFixed: true, termRestorePerToken: true}

// gridStart is one more start for multiStart: from f.cfg, each free
// gridded term in turn, twice over, moved to the factor of decadeFactors
// of its value with the least loss. The loss has minima decades apart (a
// save cost traded against the prompt cost), and the starting values
// (replayStart's, an H100's slot save of 300 ms) can be decades from the
// server's (the CPU llama-server's saves cost 3–7 ms): from them alone
// Nelder–Mead settled, on a mock with a 30 ms save, at 71 ms and a prompt
// cost 40 times too small; with this start it found the mock's terms. ok
// is false when the stage moves no gridded term.
func (f *replayFit) gridStart() (engine.Config, bool) {
	g := *f
	moved := false
	for range 2 {
		for k, t := range g.terms() {
			if !gridded[t] {
				continue
			}
			moved = true
			x := g.x()
			base, best, bestLoss := x[k], x[k], g.loss(x)
			for _, fac := range decadeFactors {
				x[k] = base + math.Log(fac)
				if l := g.loss(x); l < bestLoss {
					best, bestLoss = x[k], l
				}
			}
			x[k] = best
			g.cfg = g.with(x)
		}
	}
	return g.cfg, moved
}

// searchRestarts is how many more times the best start's search runs,
// each from the last one's best point: Nelder–Mead stalls in a shrunken
// simplex.
const searchRestarts = 2

// startScales are the factors the free terms' starting values are
// multiplied by for the stage's starts (with gridStart's): the loss has
// local minima (a save cost traded against a prompt cost), so each start
// searches once and the best goes on.
var startScales = []float64{1, 0.5, 2}

// multiStart searches from each of startScales' starts, keeps the one
// of least loss, then restarts that one searchRestarts times. It returns
// the configuration found.
func (f *replayFit) multiStart(evals int) (engine.Config, error) {
	base := f.cfg
	best, bestLoss := base, math.Inf(1)
	starts := make([]engine.Config, 0, len(startScales)+1)
	for _, k := range startScales {
		starts = append(starts, scaled(base, f.terms(), k))
	}
	if grid, ok := f.gridStart(); ok {
		starts = append(starts, grid)
	}
	for _, r := range f.searchAll(starts, evals) {
		if r.err != nil {
			return base, r.err
		}
		if r.loss < bestLoss {
			best, bestLoss = r.cfg, r.loss
		}
	}
	f.cfg = best
	for range searchRestarts {
		next, err := f.search(evals)
		if err != nil {
			return best, err
		}
		f.cfg = next
	}
	return f.cfg, nil
}

// scaled returns cfg with the given terms multiplied by k.
func scaled(cfg engine.Config, terms []int, k float64) engine.Config {
	for _, i := range terms {
		llamaTerms[i].set(&cfg, llamaTerms[i].get(cfg)*k)
	}
	return cfg
}

// x returns the free terms of f.cfg as the search's log values.
func (f *replayFit) x() []float64 {
	var x []float64
	for _, i := range f.terms() {
		x = append(x, logOr(llamaTerms[i].get(f.cfg)))
	}
	return x
}

// has reports whether some set has a file of kind k.
func (f *replayFit) has(k fileKind) bool {
	for _, s := range f.sets {
		for _, v := range s.kinds {
			if v == k {
				return true
			}
		}
	}
	return false
}

// minRestores is the fewest host-cache restores the probe's replay must
// show for the restore terms to be fitted; below it they are taken from
// the save's (restoreAsSave).
const minRestores = 5

// restores counts the host-cache restores of the sets' replay on cfg.
func restores(cfg engine.Config, sets []*replaySet) (int64, error) {
	var n int64
	err := eachReplay(cfg, sets, func(st engine.Stats) { n += st.SlotRestores })
	return n, err
}

// eachReplay runs each set on a fresh engine of cfg and hands add the
// engine's counters at the end.
func eachReplay(cfg engine.Config, sets []*replaySet, add func(engine.Stats)) error {
	for _, set := range sets {
		e, err := engine.New(cfg)
		if err != nil {
			return err
		}
		if _, err := runSet(e, set); err != nil {
			return err
		}
		add(e.Stats())
	}
	return nil
}

// restoreAsSave prices a restore as the save: the same state copied the
// other way (llama_state_seq_set_data against get_data, through the same
// per-layer state code, row by row for -fa off's transposed V cache).
func restoreAsSave(cfg engine.Config) engine.Config {
	cfg.LlamaCpp.RestoreFixed, cfg.LlamaCpp.RestorePerToken = cfg.LlamaCpp.SaveFixed, cfg.LlamaCpp.SavePerToken
	return cfg
}
