package calibrate

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/tracebench/tracebench/mockserver/profile"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// MinRequests is the fewest successful requests with two or more output
// tokens a fit needs.
const MinRequests = 20

// Options configure Fit. Its errors name a field by its path, as
// "CalibrateOptions.Partial".
type Options struct {
	// Start is the profile the fit starts from: its scheduler limits and
	// KV cache are kept (num_gpu_blocks is replaced by a scraped figure),
	// and a parameter the data cannot identify keeps its value.
	Start *profile.Profile
	// Partial fits what a run with a single concurrency level identifies
	// instead of refusing it.
	Partial bool
	// Name names the fitted profile.
	Name string
	// Cache is the cache model of the fitted profile: CacheAuto (also
	// when empty; per-slot when the runs were served by llama.cpp),
	// "paged-prefix" or "per-slot".
	Cache string
	// HostCacheTokens is llama-server's host prompt cache in tokens
	// (--cache-ram MiB × 2^20 / the model's KV bytes per token; 0: the
	// assumed default) for a per-slot profile.
	HostCacheTokens int
	// Prompts rebuilds each results file's prompts. With it, a per-slot
	// (llama.cpp) fit places llama-server's slot-switch saves by
	// replaying the runs through the engine and fits their cost
	// (save_fixed, save_per_token); nil fits without them, and the
	// saves' time lands in request_overhead.
	Prompts Prompts
	// SaveLogs are the servers' logs of their host prompt cache, one per
	// server in the runs' backend order (--target's order), for a
	// per-slot fit that places the saves (Prompts set): the saves' cost
	// is then the logs' measured line (SaveCostOf) instead of fitted
	// terms, and the saves the replay placed on each server are compared
	// with the log's. Empty: no logs.
	SaveLogs []SaveLog
}

// Param is one fitted latency parameter.
type Param struct {
	// Name is the profile field (c_prefill, c_decode, beta, gamma, jitter).
	Name string
	// Value and StdErr are in Unit ("ms", "us" or "").
	Value, StdErr float64
	Unit          string
	// Identified is false when the data could not determine it; Value is
	// then the starting profile's.
	Identified bool
}

// Result is a fitted profile with what the fit measured.
type Result struct {
	// Profile is the fitted profile (its Fit section filled in).
	Profile *profile.Profile
	// Params lists every latency parameter.
	Params []Param
	// Residuals summarises the residuals of the TTFT and decode equations.
	Residuals []profile.Residual
	// Warnings say what the run could not identify and what to run.
	Warnings []string
	// BatchRange is the 10th and 90th percentile of the mean batch of the
	// decode equations.
	BatchRange [2]float64
	// Speed says that the servers' decode speed held over the probe (its
	// first phase against the repeat it ends with); empty when the runs
	// have no repeat, or when it moved (a warning says so then).
	Speed string
	// Saves says, with Options.SaveLogs, what the servers' logs measured
	// of the slot saves and how many the replay placed on each server
	// against the logs' count; empty without logs.
	Saves string

	placed []int     // saves the last placement put on each backend
	logged *SaveCost // the save's cost from the servers' logs; nil: fitted or none
}

// ErrSingleLevel reports a run with one concurrency level.
var ErrSingleLevel = errors.New("single concurrency level")

// Fit fits the latency model to in.
func Fit(in *Input, opt Options) (*Result, error) {
	start := opt.Start
	if start == nil {
		start, _ = profile.Builtin(profile.DefaultName)
	}
	start, why, serr := startFor(start, in, opt.Cache, opt.HostCacheTokens)
	if serr != nil {
		return nil, serr
	}
	budget, maxSeqs := start.Engine.MaxNumBatchedTokens, start.Engine.MaxNumSeqs
	rows := in.rowsOf(stepModel{}, budget, maxSeqs)
	var bs []float64
	for _, r := range rows {
		if !r.ttft {
			bs = append(bs, r.b)
		}
	}
	if len(bs) < MinRequests {
		return nil, fmt.Errorf("calibrate: only %d successful requests with 2 or more output tokens (of %d successful, %d failed, %d cut off): need at least %d",
			len(bs), in.Requests, in.Failed, in.Canceled, MinRequests)
	}
	sort.Float64s(bs)
	res := &Result{BatchRange: [2]float64{stat.Quantile(0.1, stat.Empirical, bs, nil), stat.Quantile(0.9, stat.Empirical, bs, nil)}}
	l := start.Latency
	fixed := [numCols]float64{colPrefill: sec(l.CPrefill), colDecode: sec(l.CDecode), colBeta: sec(l.Beta + l.CStep),
		colBetaGamma: sec(l.Beta+l.CStep) * l.Gamma, colOverhead: sec(l.RequestOverhead),
		colAttend: l.CAttendNs}
	free := [numCols]bool{true, true, true, true, true, true}
	lo, hi := res.BatchRange[0], res.BatchRange[1]
	if hi-lo < 0.5 {
		what := fmt.Sprintf("the batch stayed near %.1f requests", (lo+hi)/2)
		if hi < 1.05 {
			what = "never more than one request was in flight per backend"
		}
		if !opt.Partial {
			return nil, fmt.Errorf("calibrate: %w: %s, so γ and c_decode cannot be fitted; "+
				"replay with several concurrency levels (e.g. rates from light to heavy load, or a probe of the live server), "+
				"or set CalibrateOptions.Partial to keep the starting profile's γ and c_decode", ErrSingleLevel, what)
		}
		free[colDecode], free[colBetaGamma] = false, false
		res.Warnings = append(res.Warnings, fmt.Sprintf("γ and c_decode not fitted (%s); kept at %g and %v; "+
			"to fit them replay with several concurrency levels, from 1 to the batch sizes you serve", what, l.Gamma, l.CDecode.D()))
	}
	var th [numCols]float64
	var se [numCols]float64
	var err error
	var final [numCols]bool
	decodeOnly := false
	opts := optionalFor(start)
	negBeta := start.Engine.Cache == profile.CachePerSlot
	var saveSets []*replaySet
	if opt.Prompts != nil && start.Engine.Cache == profile.CachePerSlot {
		saveSets = res.saveSets(in, opt.Prompts)
	}
	savesOn := saveSets != nil
	if savesOn {
		res.priceFromLogs(opt.SaveLogs, &fixed)
	} else if len(opt.SaveLogs) > 0 {
		res.Warnings = append(res.Warnings, "the servers' logs were not read: the slot saves are placed only for "+
			"llama.cpp servers (a per-slot profile) whose prompts can be rebuilt")
	}
	for iter := 0; iter < 4; iter++ {
		if iter > 0 && savesOn {
			if savesOn = res.placeSaves(in, saveSets, start, th, &free); savesOn && iter == 1 && res.logged == nil {
				opts = append(opts, colSave, colSaveTok)
			}
		}
		if iter > 0 {
			rows = in.rowsOf(modelOf(th), budget, maxSeqs)
			if decodeOnly {
				rows = decodeRows(rows)
			}
			weigh(rows, th)
		}
		th, se, final, err = solveChecked(rows, free, fixed, opts, negBeta, &res.Warnings, iter == 3)
		if err != nil && !decodeOnly {
			// The TTFT equations can contradict the decode ones on an
			// engine whose prompt processing the model does not describe;
			// the decode equations alone still give the step terms.
			decodeOnly, rows = true, decodeRows(rows)
			free[colOverhead], fixed[colOverhead] = false, 0
			res.Warnings = append(res.Warnings, "the time-to-first-token equations contradict the decode ones (β came out "+
				"not positive with both); fitted from the decode equations alone, request_overhead kept at 0: "+
				"the engine's prompt processing is not the model's prefill step, so expect TTFT errors")
			th, se, final, err = solveChecked(rows, free, fixed, opts, negBeta, &res.Warnings, iter == 3)
		}
		if err != nil {
			return nil, err
		}
	}
	res.compareSaves(opt.SaveLogs, savesOn)
	se = robustSE(rows, final, th, se)
	res.Residuals = residuals(rows, th)
	if w := noiseWarning(res.Residuals, missingTerm(rows, withoutSaves(rows, th, final)), in); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	if note, moved := speedOverProbe(in.Files); moved {
		res.Warnings = append(res.Warnings, note)
	} else {
		res.Speed = note
	}
	if in.Loopback {
		res.Warnings = append(res.Warnings, "the runs' client reached its server over loopback, so it ran on the "+
			"server's machine: unless each was bound to CPUs of its own (taskset), the client's work shows in the "+
			"server's times")
	}
	res.fill(rows, th, se, final, start, in, opt)
	if why != "" {
		res.Profile.Notes += "; " + why
		res.Warnings = append(res.Warnings, why+": check host_cache_tokens against --cache-ram and the model's KV bytes per token")
		res.Profile.Fit.Warnings = res.Warnings
	}
	return res, nil
}

// decodeRows returns the decode equations of rows.
func decodeRows(rows []row) []row {
	var out []row
	for _, r := range rows {
		if !r.ttft {
			out = append(out, r)
		}
	}
	return out
}

// modelOf is the step model of the fitted parameters.
func modelOf(th [numCols]float64) stepModel { return stepModel{ok: true, th: th} }

// optional are the terms a fit adds only when the data support them.
var optional = []int{colBetaGamma, colDecode, colAttend}

// optionalFor returns the optional terms of a fit from start. On a
// llama.cpp server (the per-slot cache) attention is always fitted, and
// set to 0 only when it comes out negative: on its CPU backend a prompt
// token pays about 95–105 ns per key of context (128 new tokens took
// 14.8 ms after no cached tokens, 40.7 ms after 2,048), yet a probe's
// noise often keeps that term under the three standard errors forward
// selection asks for.
func optionalFor(start *profile.Profile) []int {
	if start.Engine.Cache == profile.CachePerSlot {
		return []int{colBetaGamma, colDecode}
	}
	return optional
}

// termName names a column for warnings.
var termName = map[int]string{colPrefill: "c_prefill", colDecode: "c_decode", colBeta: "β",
	colBetaGamma: "γ", colOverhead: "request_overhead", colAttend: "c_attend",
	colSave: "save_fixed", colSaveTok: "save_per_token"}

// solveChecked fits by forward selection: c_prefill, β and the request
// overhead always, then, one at a time, the batch and attention terms (γ,
// c_decode, c_attend) while one of them is positive by more than three
// standard errors, keeps β positive and lowers the weighted residuals by
// 1 % or more. A term not added is set to 0; a c_prefill the data cannot
// determine keeps its start value and a negative overhead becomes 0 (as
// does a negative c_attend where it is not optional). It
// returns the final free set. With negBeta (a per-slot engine) β may
// stay below 0 once c_decode is in, if β + c_decode > 0 and γ is out.
// Warnings are added on the last pass only.
func solveChecked(rows []row, free [numCols]bool, fixed [numCols]float64, optional []int, negBeta bool, warns *[]string, last bool) ([numCols]float64, [numCols]float64, [numCols]bool, error) {
	note := func(s string) {
		if last {
			*warns = append(*warns, s)
		}
	}
	cur, fx := free, fixed
	var cands []int
	for _, c := range optional {
		if free[c] {
			cur[c], fx[c] = false, 0
			cands = append(cands, c)
		}
	}
	th, se, rss, err := solve(rows, cur, fx)
	if err != nil {
		return th, se, cur, err
	}
	for {
		best, bestRSS, bestZero := -1, rss, false
		var bth, bse [numCols]float64
		for _, c := range cands {
			if cur[c] || (c == colBetaGamma && (!cur[colBeta] || th[colBeta] < 0)) {
				continue // γ scales β: nothing to scale once β is fixed at 0 or below 0
			}
			try := cur
			try[c] = true
			t2, s2, r2, e2 := solve(rows, try, fx)
			zeroBeta := false
			// A per-slot (llama.cpp) engine may keep β below 0 with
			// c_decode: its step at batch 1 is cheaper than the per-sequence
			// cost of larger batches.
			negOK := e2 == nil && negBeta && c == colDecode && t2[colBeta] < 0 && cur[colBeta] && linearStep(t2, try)
			if e2 == nil && c == colDecode && t2[colBeta] <= 0 && cur[colBeta] && !negOK {
				// A CPU engine's step cost can be all per sequence: fit
				// c_decode with β at 0 instead of refusing it.
				try[colBeta], try[colBetaGamma] = false, false
				if t3, s3, r3, e3 := solve(rows, try, zeroFx(zeroFx(fx, colBeta), colBetaGamma)); e3 == nil {
					t2, s2, r2, zeroBeta = t3, s3, r3, true
				}
			}
			if e2 != nil || t2[c] <= 3*s2[c] || (cur[colBeta] && t2[colBeta] <= 0 && !zeroBeta && !negOK) || r2 > rss*0.99 || r2 >= bestRSS {
				continue
			}
			best, bestRSS, bth, bse, bestZero = c, r2, t2, s2, zeroBeta
		}
		if best < 0 {
			break
		}
		cur[best], th, se, rss = true, bth, bse, bestRSS
		if best == colDecode && th[colBeta] < 0 {
			note(fmt.Sprintf("β came out below 0 (%.3g ms) with c_decode %.3g ms: a step of one sequence costs less than each sequence "+
				"of a larger batch; kept, with γ at 0 (the step at batch b is β + c_decode·b)", th[colBeta]*1e3, th[colDecode]*1e3))
		}
		if bestZero {
			cur[colBeta], cur[colBetaGamma], fx = false, false, zeroFx(zeroFx(fx, colBeta), colBetaGamma)
			note("β came out not positive once c_decode was fitted: the step cost is per sequence; β set to 0")
		}
	}
	for _, c := range cands {
		if !cur[c] {
			note(fmt.Sprintf("%s not fitted: the data do not show it (it would not be positive by three standard errors, "+
				"or it adds nothing the other terms do not explain); set to 0", termName[c]))
		}
	}
	refit := func(c int, v float64) {
		cur[c], fx[c] = false, v
		if t2, s2, _, e2 := solve(rows, cur, fx); e2 == nil {
			th, se = t2, s2
		}
	}
	if cur[colPrefill] && (th[colPrefill] < 0 || se[colPrefill] > 0.25*math.Abs(th[colPrefill])) {
		refit(colPrefill, fixed[colPrefill])
		note(fmt.Sprintf("c_prefill not identified (prompt lengths or cache hits varied too little); kept at %v. "+
			"To fit it replay prompts from about 100 to 2,000 tokens without shared prefixes", durOf(fixed[colPrefill])))
	}
	if cur[colOverhead] && th[colOverhead] < 0 {
		refit(colOverhead, 0)
		note("the request overhead came out below 0; set to 0")
	}
	if cur[colAttend] && !slices.Contains(optional, colAttend) && th[colAttend] < 0 {
		refit(colAttend, 0)
		note("c_attend came out below 0; set to 0")
	}
	if th[colBeta] <= 0 && !(th[colBeta] == 0 && !cur[colBeta] && th[colDecode] > 0) && !(negBeta && linearStep(th, cur)) {
		return th, se, cur, fmt.Errorf("calibrate: the fitted per-step time β is %.3g ms, not positive: the run does not follow the engine model (check that the results are from one server kind and not dominated by errors or queueing)", th[colBeta]*1e3)
	}
	return th, se, cur, nil
}

// linearStep reports whether th's step is linear in the batch (γ not
// fitted) and positive from batch 1 (c_decode > 0 and β + c_decode > 0):
// what a β below 0 needs.
func linearStep(th [numCols]float64, free [numCols]bool) bool {
	return !free[colBetaGamma] && th[colDecode] > 0 && th[colBeta]+th[colDecode] > 0
}

// zeroFx returns fx with column c set to 0.
func zeroFx(fx [numCols]float64, c int) [numCols]float64 {
	fx[c] = 0
	return fx
}

// design returns the free columns and the weighted design matrix of
// rows over them (nil when none is free or rows are too few to solve).
func design(rows []row, free [numCols]bool) ([]int, *mat.Dense) {
	var cols []int
	for c := range numCols {
		if free[c] {
			cols = append(cols, c)
		}
	}
	if len(rows) <= len(cols) || len(cols) == 0 {
		return cols, nil
	}
	x := mat.NewDense(len(rows), len(cols), nil)
	for i, r := range rows {
		w := r.weight()
		for j, c := range cols {
			x.Set(i, j, w*r.x[c])
		}
	}
	return cols, x
}

// solve fits the free columns by linear least squares (the fixed ones'
// contribution is subtracted from y) and returns the parameters, their
// standard errors (0 for fixed ones) and the residual sum of squares.
func solve(rows []row, free [numCols]bool, fixed [numCols]float64) (th, se [numCols]float64, rss float64, err error) {
	for c := range numCols {
		if !free[c] {
			th[c] = fixed[c]
		}
	}
	cols, x := design(rows, free)
	m, k := len(rows), len(cols)
	if x == nil {
		return th, se, 0, fmt.Errorf("calibrate: %d equations for %d parameters", m, k)
	}
	known := th // the fixed columns' values; the free ones are 0 here
	y := mat.NewVecDense(m, nil)
	for i, r := range rows {
		y.SetVec(i, r.weight()*(r.y-r.predict(known)))
	}
	var sol mat.VecDense
	if err := sol.SolveVec(x, y); err != nil {
		return th, se, 0, fmt.Errorf("calibrate: least squares: %w", err)
	}
	var fit, res mat.VecDense
	fit.MulVec(x, &sol)
	res.SubVec(y, &fit)
	rss = mat.Dot(&res, &res)
	var xtx, inv mat.Dense
	xtx.Mul(x.T(), x)
	if err := inv.Inverse(&xtx); err != nil {
		return th, se, rss, fmt.Errorf("calibrate: the parameters are not identifiable from these results: %w", err)
	}
	s2 := rss / float64(m-k)
	for j, c := range cols {
		th[c] = sol.AtVec(j)
		se[c] = math.Sqrt(max(0, s2*inv.At(j, j)))
	}
	return th, se, rss, nil
}

// weigh scales each row's weight by 1/σ of its kind (TTFT, the server's
// prompt time or decode),
// σ being the RMS weighted residual of that kind under th: a weighted
// least squares in which the noisy TTFT equations (half a step of arrival
// noise each) do not drown the decode ones.
func weigh(rows []row, th [numCols]float64) {
	sq, n := map[string]float64{}, map[string]int{}
	for _, r := range rows {
		p := r.predict(th)
		k := rowKind(r)
		sq[k] += sqf(r.w * (r.y - p))
		n[k]++
	}
	for i := range rows {
		k := rowKind(rows[i])
		if n[k] > 0 && sq[k] > 0 {
			rows[i].w /= math.Sqrt(sq[k] / float64(n[k]))
		}
	}
}

func sqf(v float64) float64 { return v * v }

// rowKind names a row's kind as the residuals report it.
func rowKind(r row) string {
	switch {
	case r.server:
		return "prompt"
	case r.ttft:
		return "ttft"
	}
	return "tpot"
}

// residuals summarises the residuals of each kind of equation: ttft,
// tpot, and prompt (the server's own prompt times) where the server sent
// them.
func residuals(rows []row, th [numCols]float64) []profile.Residual {
	var out []profile.Residual
	for _, kind := range []string{"ttft", "tpot", "prompt"} {
		var n int
		var sq, sum float64
		for _, r := range rows {
			if rowKind(r) != kind {
				continue
			}
			p := r.predict(th)
			n, sq, sum = n+1, sq+(r.y-p)*(r.y-p), sum+r.y
		}
		if n == 0 {
			continue
		}
		rms := math.Sqrt(sq / float64(n))
		out = append(out, profile.Residual{Kind: kind, N: n, RMSMs: round3(rms * 1e3), RelRMS: round3(rms / (sum / float64(n)))})
	}
	return out
}

func sec(d profile.Duration) float64 { return d.D().Seconds() }

func round3(v float64) float64 {
	if v == 0 || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 3-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
