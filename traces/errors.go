package traces

import "fmt"

// ParseError is a malformed trace record: the file, the 1-based line and
// the field at fault. With ReadOptions.SkipInvalid the record is skipped
// and counted instead of ending the read.
type ParseError struct {
	// File is the trace's path as given to Open ("-" for a stream).
	File string
	// Line is the 1-based line number of the record (for JSON arrays, the
	// line where the record starts).
	Line int
	// Field names the column or JSON key at fault; empty when the record
	// as a whole is malformed.
	Field string
	// Err is the cause.
	Err error
}

// Error formats "read trace FILE line N field F: cause".
func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("read trace %s line %d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("read trace %s line %d field %s: %v", e.File, e.Line, e.Field, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// fieldErr builds a ParseError for a record being decoded; File and Line
// are filled in by the FileSource that reads the record.
func fieldErr(field string, format string, a ...any) error {
	return &ParseError{Field: field, Err: fmt.Errorf(format, a...)}
}
