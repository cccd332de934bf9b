package sim

import (
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
