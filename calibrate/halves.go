package calibrate

import (
	"errors"
	"fmt"
	"io"
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
	var cfgs [2]struct {
		val, se map[int]float64
	}
	var fitted [2]map[int]bool
	var errs [2]error
	var wg sync.WaitGroup
	for h := range 2 { // the halves at once: each replay runs on one goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			best, ran, err := staged(start, sets, replayEvals, h+1)
			if err != nil {
				errs[h] = fmt.Errorf("calibrate halves: %w", err)
				return
			}
			cfgs[h].se = stageErrs(best, sets, ran, h+1)
			cfgs[h].val, fitted[h] = map[int]float64{}, map[int]bool{}
			for _, st := range ran {
				for _, t := range st.terms {
					cfgs[h].val[t], fitted[h][t] = llamaTerms[t].get(best), true
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	var out []HalfTerm
	for i, t := range llamaTerms {
		if !fitted[0][i] || !fitted[1][i] { // a term both halves fitted
			continue
		}
		ht := HalfTerm{Name: t.name, Unit: t.unit,
			First: cfgs[0].val[i] / t.per, FirstErr: cfgs[0].se[i] / t.per,
			Second: cfgs[1].val[i] / t.per, SecondErr: cfgs[1].se[i] / t.per}
		ht.Agree = apart(ht.First, ht.FirstErr, ht.Second, ht.SecondErr) <= 2
		out = append(out, ht)
	}
	return out, nil
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
	return err
}
