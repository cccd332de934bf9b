package replay

import (
	"errors"
	"io"
	"testing"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// mustOpenResults opens the results file at path, read up to its run header;
// the file is closed when the test ends.
var mustOpenResults = testfixtures.OpenResults

// readAll reads the results file at path to its end and returns the
// reader (header and stop) and the counts of Results and Events.
func readAll(t *testing.T, path string) (*results.Reader, int, int, error) {
	t.Helper()
	rd, c, err := results.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer c.Close()
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
