// Package flags binds the command line's shared flag groups to the
// library's types: a Run's workload, sessions, policy, client and
// ShareGPT flags to bench's Spec parts, the agentic-session flags to
// traces.AgenticOptions, the SLO and price flags to metrics.Options, and
// the --mock-set KEY=VALUE value. Its errors are bench.UsageErrors that
// name the flag (the command exits 2 on them).
package flags

import (
	"fmt"

	"github.com/tracebench/tracebench/bench"
)

// usagef formats a UsageError that names no one field.
func usagef(format string, a ...any) error { return bench.UsageError{Err: fmt.Errorf(format, a...)} }
