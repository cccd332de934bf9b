package calibrate

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
)

// HalfTerm is one engine term fitted on each half of the probe's
// requests.
type HalfTerm struct {
	// Name and Unit are the term's, as calibrate prints it.
	Name, Unit string
	// First and Second are the term fitted on the requests of even and
	// of odd index (in sent order), with their standard errors, in Unit.
	First, FirstErr, Second, SecondErr float64
	// Agree is true when the two are at most 2 combined standard errors
	// apart (√(FirstErr² + SecondErr²)); false too when an error is NaN.
	Agree bool
}

// Halves fits the engine-replay terms (as Refit does, from the same
// start: call it before Refit, which replaces res's profile) on each half
// of the probe's requests: all requests are replayed, and each fit's
// loss sees every other request. Two probes of one server should agree
// within their standard errors; the halves are two such probes that
// share the server's state.
func Halves(res *Result, in *Input, prompts Prompts) ([]HalfTerm, error) {
	sets, _, err := loadReplay(in.Files, prompts)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("calibrate halves: no request reached a server")
	}
	start := replayStart(res, in)
	m, err := meanSaved(start, sets)
	if err != nil {
		return nil, fmt.Errorf("calibrate halves: %w", err)
	}
	var fits [2]halfFit
	var errs [2]error
	var wg sync.WaitGroup
	for h := range 2 { // the halves at once: each replay runs on one goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			best, ran, err := staged(start, sets, replayEvals, h+1, res.loggedTerms())
			if err != nil {
				errs[h] = fmt.Errorf("calibrate halves: %w", err)
				return
			}
			fits[h] = fitHalf(&replayFit{cfg: best, sets: sets, free: stageTerms(ran), half: h + 1}, m)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	out := compareHalves(fits)
	if a, b := fits[0].save, fits[1].save; a.ok && b.ok && m > 0 {
		ht := HalfTerm{Name: fmt.Sprintf("save_at_%.0f_tokens", m), Unit: "ms",
			First: a.val / 1e-3, FirstErr: a.se / 1e-3, Second: b.val / 1e-3, SecondErr: b.se / 1e-3}
		ht.Agree = apart(ht.First, ht.FirstErr, ht.Second, ht.SecondErr) <= 2
		out = append(out, ht)
	}
	return out, nil
}

// halfFit is one half's fitted terms and standard errors by term index
// (seconds, or 1), and its slot-switch save at the probe's mean saved
// length (saveAt).
type halfFit struct {
	val, se map[int]float64
	save    struct {
		val, se float64
		ok      bool
	}
}

// fitHalf reads f's free terms at f.cfg, their standard errors (as
// stdErrs) and the save at m tokens from one covariance.
func fitHalf(f *replayFit, m float64) halfFit {
	x, cov := f.logCov()
	se := valueErrs(x, cov)
	hf := halfFit{val: map[int]float64{}, se: map[int]float64{}}
	for k, t := range f.free {
		hf.val[t], hf.se[t] = llamaTerms[t].get(f.cfg), se[k]
	}
	hf.save.val, hf.save.se, hf.save.ok = saveAt(f.free, x, cov, m)
	return hf
}

// compareHalves lists the terms both halves fitted, in llamaTerms'
// order, with whether they agree.
func compareHalves(fits [2]halfFit) []HalfTerm {
	var out []HalfTerm
	for i, t := range llamaTerms {
		_, ok0 := fits[0].val[i]
		_, ok1 := fits[1].val[i]
		if !ok0 || !ok1 { // a term both halves fitted
			continue
		}
		ht := HalfTerm{Name: t.name, Unit: t.unit,
			First: fits[0].val[i] / t.per, FirstErr: fits[0].se[i] / t.per,
			Second: fits[1].val[i] / t.per, SecondErr: fits[1].se[i] / t.per}
		ht.Agree = apart(ht.First, ht.FirstErr, ht.Second, ht.SecondErr) <= 2
		out = append(out, ht)
	}
	return out
}

// WriteHalves prints the halves' table and how many terms agree.
func WriteHalves(w io.Writer, terms []HalfTerm) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "term\tfirst half\t± std err\tsecond half\t± std err\tunit\tagree")
	agree := 0
	for _, t := range terms {
		fmt.Fprintf(tw, "%s\t%.4g\t%.3g\t%.4g\t%.3g\t%s\t%v\n", t.Name, t.First, t.FirstErr, t.Second, t.SecondErr, t.Unit, t.Agree)
		if t.Agree {
			agree++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "halves: %d of %d terms agree within 2 combined standard errors\n", agree, len(terms))
	if err != nil {
		return err
	}
	if note := splitNote(terms); note != "" {
		_, err = fmt.Fprintln(w, note)
	}
	return err
}

// splitNote says when the halves agree on the slot-switch save at the
// probe's mean saved length but not on its fixed or per-token cost: the
// probe's saves then copied too narrow a range of lengths to tell the
// two apart ("" otherwise).
func splitNote(terms []HalfTerm) string {
	var at *HalfTerm
	split := false
	for i, t := range terms {
		switch {
		case strings.HasPrefix(t.Name, "save_at_"):
			at = &terms[i]
		case (t.Name == "save_fixed" || t.Name == "save_per_token") && !t.Agree:
			split = true
		}
	}
	if at == nil || !at.Agree || !split {
		return ""
	}
	return fmt.Sprintf("the halves agree on the slot-switch save at the probe's mean saved length (%s: %.4g and %.4g %s) "+
		"but not on its split into a fixed and a per-token cost: the probe's saves copied too narrow a range of lengths "+
		"to tell the two apart, so the profile's save is sure near that length and not far from it; a probe with the "+
		"ladder phase (saves of chosen lengths at concurrency 1) fits the split", at.Name, at.First, at.Second, at.Unit)
}
