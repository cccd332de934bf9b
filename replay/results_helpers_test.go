package replay

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracebench/tracebench/results"
)

// mustOpenResults opens the results file at path for reading.
func mustOpenResults(t *testing.T, path string) *results.Reader {
	t.Helper()
	rd, c, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return rd
}

// readAll reads the results file at path to its end and returns the
// reader (header and stop) and the counts of Results and Events.
func readAll(t *testing.T, path string) (*results.Reader, int, int, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := results.NewReader(path, f)
	if err != nil {
		return nil, 0, 0, err
	}
	nres, events := 0, 0
	for {
		r, e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd, nres, events, nil
		}
		if err != nil {
			return rd, nres, events, err
		}
		if r != nil {
			nres++
		}
		if e != nil {
			events++
		}
	}
}
