package bench

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tracebench/tracebench/traces"
)

// UsageError marks an error as the caller's: a bad value in a Spec (or
// MockFleet, CompareSpec) field, or a bad flag of the command line. The
// text names the field by its path from the struct the caller filled,
// as "Spec.Policy.Router" or "MockFleet.Replicas" (the command line
// rewrites it into the flag's name, and exits 2 on it).
type UsageError struct {
	// Field is the path of the field at fault ("" when no one field is);
	// Err says what is wrong with it, naming it.
	Field string
	Err   error
}

// Error implements error.
func (u UsageError) Error() string { return u.Err.Error() }

// Unwrap returns the error it marks.
func (u UsageError) Unwrap() error { return u.Err }

// usagef formats a UsageError that names no one field.
func usagef(format string, a ...any) error { return UsageError{Err: fmt.Errorf(format, a...)} }

// fieldf formats a UsageError about field, whose text names it.
func fieldf(field, format string, a ...any) error {
	return UsageError{Field: field, Err: fmt.Errorf(format, a...)}
}

// FieldErrorf formats a UsageError about field, whose text names it by
// its path (as "PlanSpec.Rate"), for the specs of the packages that run
// Specs (plan, predict, probe).
func FieldErrorf(field, format string, a ...any) error { return fieldf(field, format, a...) }

// ErrInterrupted is returned by a Run stopped by its context (Ctrl-C)
// after writing what was measured.
var ErrInterrupted = errors.New("interrupted")

// CheckArrivals validates the arrival options as a UsageError. The
// library reads --cv 0 as its default 1 (Poisson), so with --arrival
// gamma it is refused rather than silently ignored.
func CheckArrivals(ao traces.ArrivalOptions) error {
	if err := ao.Validate(); err != nil {
		return usagef("%v", err)
	}
	if ao.Process == traces.ProcessGamma && ao.CV == 0 {
		return fieldf("Spec.Workload.CV", "Spec.Workload.CV 0: want > 0 (Spec.Workload.Arrival constant gives evenly spaced arrivals)")
	}
	return nil
}

// fileOf is w's *os.File, also under a writer that serialises writes to
// one and says so with a File method, or nil (for the terminal check).
func fileOf(w io.Writer) *os.File {
	switch v := w.(type) {
	case *os.File:
		return v
	case interface{ File() *os.File }:
		return v.File()
	}
	return nil
}

// FirstError is the first error that is not an interrupt, else the
// first interrupt, else nil.
func FirstError(errs []error) error {
	var intr error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, ErrInterrupted):
			intr = cmp.Or(intr, err)
		default:
			return err
		}
	}
	return intr
}
