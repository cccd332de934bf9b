package sim

import (
	"os"
	"testing"

	"github.com/tracebench/tracebench/results"
)

// mustOpenResults opens the results file at path for reading.
func mustOpenResults(t *testing.T, path string) *results.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	rd, err := results.NewReader(path, f)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}
