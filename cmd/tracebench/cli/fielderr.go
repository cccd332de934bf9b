package cli

import (
	"errors"
	"regexp"

	"github.com/tracebench/tracebench/bench"
)

// The library's usage errors name the Go fields at fault
// ("Spec.Workload.Shard", "MockFleet.Replicas"); the command line
// names the flags that set them instead. Each table maps a field path to
// the flag (or flags, as the message should read) of the commands it
// serves.

// fieldPath matches a field path in an error's text.
var fieldPath = regexp.MustCompile(`\b(?:Spec|MockFleet|CompareSpec|SweepSpec)(?:\.[A-Z][A-Za-z0-9]*)+`)

// flagErr rewrites the field paths the usage error err names into the
// flags names gives for them, keeping it a usage error; other errors,
// and paths names does not hold, are left as they are.
func flagErr(err error, names map[string]string) error {
	var ue bench.UsageError
	if err == nil || !errors.As(err, &ue) {
		return err
	}
	text := fieldPath.ReplaceAllStringFunc(err.Error(), func(p string) string {
		if f, ok := names[p]; ok {
			return f
		}
		return p
	})
	if text == err.Error() {
		return err
	}
	return bench.UsageError{Field: ue.Field, Err: errors.New(text)}
}

// isField reports whether err is a usage error naming field.
func isField(err error, field string) bool {
	var ue bench.UsageError
	return errors.As(err, &ue) && ue.Field == field
}
