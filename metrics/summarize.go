package metrics

import (
	"errors"
	"io"

	"github.com/tracebench/tracebench/results"
)

// Summarize streams the results file at path through an Accumulator and
// returns its Summary. Memory stays bounded however many Results the
// file holds. A file cut off mid-line (a killed Run) is read up to the
// cut and gets a warning.
func Summarize(path string, o Options) (*Summary, error) {
	rd, c, err := results.Open(path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return summarize(rd, o)
}

// SummarizeReader is Summarize over r; name is used in errors.
func SummarizeReader(name string, r io.Reader, o Options) (*Summary, error) {
	rd, err := results.NewReader(name, r)
	if err != nil {
		return nil, err
	}
	return summarize(rd, o)
}

// summarize folds what rd has left to read into a Summary.
func summarize(rd *results.Reader, o Options) (*Summary, error) {
	acc := NewAccumulator(rd.Header, o)
	for {
		res, ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if res != nil {
			acc.Add(res)
		} else {
			acc.AddEvent(ev)
		}
	}
	s := acc.Finish(rd.Stop)
	if rd.Truncated {
		s.addWarning(Warning{"the results file ends in a cut-off line", "the run was killed while writing; that line is left out", ""})
	}
	return s, nil
}
