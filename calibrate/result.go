package calibrate

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// durOf converts seconds to a duration rounded to 10 ns.
func durOf(s float64) time.Duration {
	return time.Duration(math.Round(s*1e8)) * 10
}

// fill builds the parameters and the profile from the solution.
func (res *Result) fill(rows []row, th, se [numCols]float64, free [numCols]bool, start *profile.Profile, in *Input, opt Options) {
	beta, bg := th[colBeta], th[colBetaGamma]
	gamma, gse := 0.0, 0.0
	if beta > 0 {
		gamma = bg / beta
		gse = math.Abs(gamma) * math.Sqrt(sq(se[colBetaGamma]/nz(bg))+sq(se[colBeta]/beta))
		if bg == 0 {
			gse = se[colBetaGamma] / beta
		}
	}
	jit, jitOK, jitClean := jitterOf(rows)
	res.Params = []Param{
		{Name: "c_prefill", Value: th[colPrefill] * 1e6, StdErr: se[colPrefill] * 1e6, Unit: "us", Identified: free[colPrefill]},
		{Name: "c_decode", Value: th[colDecode] * 1e6, StdErr: se[colDecode] * 1e6, Unit: "us", Identified: free[colDecode] && se[colDecode] > 0},
		{Name: "beta", Value: beta * 1e3, StdErr: se[colBeta] * 1e3, Unit: "ms", Identified: free[colBeta]},
		{Name: "gamma", Value: gamma, StdErr: gse, Identified: free[colBetaGamma] && se[colBetaGamma] > 0},
		{Name: "c_attend_ns", Value: th[colAttend], StdErr: se[colAttend], Unit: "ns", Identified: free[colAttend] && se[colAttend] > 0},
		{Name: "jitter", Value: jit, Identified: jitOK},
		{Name: "request_overhead", Value: th[colOverhead] * 1e3, StdErr: se[colOverhead] * 1e3, Unit: "ms", Identified: free[colOverhead] && se[colOverhead] > 0},
	}
	switch {
	case res.logged != nil:
		l := res.logged
		res.Params = append(res.Params,
			Param{Name: "save_fixed", Value: l.Fixed * 1e3, StdErr: l.FixedSE * 1e3, Unit: "ms", Identified: true},
			Param{Name: "save_per_token", Value: l.PerToken * 1e6, StdErr: l.PerTokenSE * 1e6, Unit: "us", Identified: l.PerTokenSE > 0})
	case free[colSave] || free[colSaveTok]:
		res.Params = append(res.Params,
			Param{Name: "save_fixed", Value: th[colSave] * 1e3, StdErr: se[colSave] * 1e3, Unit: "ms", Identified: free[colSave] && se[colSave] > 0},
			Param{Name: "save_per_token", Value: th[colSaveTok] * 1e6, StdErr: se[colSaveTok] * 1e6, Unit: "us", Identified: free[colSaveTok] && se[colSaveTok] > 0})
	}
	switch {
	case !jitOK:
		res.Params[5].Value = start.Latency.Jitter
		res.Warnings = append(res.Warnings, "jitter not measured (too few requests with 8 or more chunk gaps); kept the starting profile's")
	case !jitClean:
		res.Warnings = append(res.Warnings, "jitter is an upper bound: fewer than 5 requests decoded alone at one batch size, "+
			"so the chunk gaps also vary with the batch; replay some requests one at a time to measure it")
	}
	p := *start
	p.Name = opt.Name
	if p.Name == "" {
		p.Name = "calibrated"
	}
	p.Description = fmt.Sprintf("fitted by tracebench calibrate from %d requests", in.Requests)
	p.Source = "tracebench calibrate " + joinBase(in.Files)
	p.FittedOn = fmt.Sprintf("%d successful requests (%d failed), batch sizes %.1f to %.1f (10th to 90th percentile), model %q",
		in.Requests, in.Failed, res.BatchRange[0], res.BatchRange[1], in.Model)
	p.Notes = "c_step is folded into beta: every step a client sees emits a token, so the two are one sum. " +
		"Scheduler limits and block size are the starting profile's (" + start.Name + ")"
	if in.NumGPUBlocks > 0 {
		p.Engine.NumGPUBlocks = in.NumGPUBlocks
		p.Notes += "; num_gpu_blocks scraped from vllm:cache_config_info"
	}
	p.Latency = profile.Latency{
		CStep:     0,
		CPrefill:  profile.Duration(durOf(max(0, th[colPrefill]))),
		CDecode:   profile.Duration(durOf(max(0, th[colDecode]))),
		Beta:      profile.Duration(durOf(beta)),
		Gamma:     round3(max(0, gamma)),
		Jitter:    round3(res.Params[5].Value),
		CAttendNs: round3(max(0, th[colAttend])),

		RequestOverhead: profile.Duration(durOf(max(0, th[colOverhead]))),
	}
	if save, per := max(0, th[colSave]), max(0, th[colSaveTok]); save > 0 || per > 0 {
		l := profile.LlamaCpp{}
		if p.LlamaCpp != nil {
			l = *p.LlamaCpp
		}
		l.SaveFixed, l.SavePerToken = profile.Duration(durOf(save)), profile.Duration(durOf(per))
		p.LlamaCpp = &l
		how := "fitted as equations' terms"
		if res.logged != nil {
			how = "priced from the servers' logs (" + res.logged.String() + ")"
		}
		p.Notes += "; llama.cpp's slot-switch saves " + how + ", placed by replaying the runs' slot choices"
	}
	fit := &profile.Fit{Runs: in.Files, Requests: in.Requests, Residuals: res.Residuals, Warnings: res.Warnings}
	for _, q := range res.Params {
		fit.Params = append(fit.Params, profile.FitParam{Name: q.Name, Value: round3(q.Value), StdErr: round3(q.StdErr),
			Unit: q.Unit, Identified: q.Identified})
	}
	for _, r := range res.Residuals {
		fit.Observations += r.N
	}
	p.Fit = fit
	res.Profile = &p
}

// jitter estimates the step-time coefficient of variation as the median
// robust chunk-gap CV of the requests whose decode saw one batch size and
// no other prompt (so their gaps vary by the jitter alone); with fewer
// than 5 such requests, of all requests, which overstates it.
func jitterOf(rows []row) (float64, bool, bool) {
	var clean, all []float64
	for _, r := range rows {
		if r.ttft || r.cv < 0 {
			continue
		}
		all = append(all, r.cv)
		if r.clean {
			clean = append(clean, r.cv)
		}
	}
	pick := clean
	if len(clean) < 5 {
		pick = all
	}
	if len(pick) < 5 {
		return 0, false, false
	}
	sort.Float64s(pick)
	return pick[len(pick)/2], true, len(clean) >= 5
}

func joinBase(files []string) string {
	s := ""
	for i, f := range files {
		if i > 0 {
			s += " "
		}
		s += filepath.Base(f)
	}
	return s
}

func sq(v float64) float64 { return v * v }

func nz(v float64) float64 {
	if v == 0 {
		return 1
	}
	return v
}
