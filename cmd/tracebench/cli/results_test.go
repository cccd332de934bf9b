package cli

import (
	"errors"
	"io"
	"testing"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// openResults opens the results file at path, read up to its run header;
// the file is closed when the test ends.
var openResults = testfixtures.OpenResults

// eachResult calls fn with every Result left in rd, in file order, skipping
// events; rd.Stop is set when it returns.
func eachResult(t *testing.T, rd *results.Reader, fn func(*results.Result)) {
	t.Helper()
	for {
		res, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if res != nil {
			fn(res)
		}
	}
}
