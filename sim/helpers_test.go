package sim

import "github.com/tracebench/tracebench/internal/testfixtures"

// mustOpenResults opens the results file at path, read up to its run
// header; the file is closed when the test ends.
var mustOpenResults = testfixtures.OpenResults
