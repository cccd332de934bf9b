package traces

import "fmt"

// ParseError is a malformed trace record: the file, the 1-based line and
// the field at fault. With ReadOptions.SkipInvalid the record is skipped
// and counted instead of ending the read.
type ParseError struct {
	// File is the trace's path as given to Open ("-" for a stream).
	File string
	// Line is the 1-based line number of the record (for JSON arrays, the
	// line where the record starts); 0 when Entry locates it instead.
	Line int
	// Entry locates a record inside a JSON document whose records do not
	// sit one to a line ("session S entry requests[3].requests[2]");
	// empty for line-based records.
	Entry string
	// Field names the column or JSON key at fault; empty when the record
	// as a whole is malformed.
	Field string
	// Err is the cause.
	Err error
}

// Error formats "read trace FILE line N field F: cause"; when Entry is
// set it follows the line, which is left out when 0, and the field is
// left out when empty.
func (e *ParseError) Error() string {
	where := "read trace " + e.File
	if e.Line > 0 || e.Entry == "" {
		where += fmt.Sprintf(" line %d", e.Line)
	}
	if e.Entry != "" {
		where += " " + e.Entry
	}
	if e.Field != "" {
		where += " field " + e.Field
	}
	return fmt.Sprintf("%s: %v", where, e.Err)
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

// fieldErr builds a ParseError for a record being decoded; File and Line
// are filled in by the FileSource that reads the record.
func fieldErr(field string, format string, a ...any) error {
	return &ParseError{Field: field, Err: fmt.Errorf(format, a...)}
}
