package results

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Each calls fn for every record to the end of the file: a Result (ev
// nil) or an Event (r nil). It stops at fn's first error, or the file's.
func (rd *Reader) Each(fn func(r *Result, ev *Event) error) error {
	for {
		r, ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(r, ev); err != nil {
			return err
		}
	}
}

// EachResult reads the results file at path and calls fn for its header
// (first, may be nil) and then for every Result, as Each; errors name the
// file.
func EachResult(path string, header func(Header) error, fn func(r *Result) error) error {
	rd, c, err := Open(path)
	if err != nil {
		return err
	}
	defer c.Close()
	if header != nil {
		if err := header(rd.Header); err != nil {
			return err
		}
	}
	return rd.Each(func(r *Result, _ *Event) error {
		if r == nil {
			return nil
		}
		return fn(r)
	})
}

// Open opens the results file at path and reads its header; the caller
// closes the returned Closer once done with the Reader. An error names
// the file: os.Open's wrapped as "results file: open PATH: ...", or
// NewReader's.
func Open(path string) (*Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results file: %w", err)
	}
	rd, err := NewReader(path, f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return rd, f, nil
}
