package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// jsonFieldErr turns an encoding/json error into a ParseError naming the
// field when json knows it.
func jsonFieldErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// A native record embeds Request: its fields' paths start with
		// the Go type's name, which the trace does not spell.
		field := strings.TrimPrefix(te.Field, "Request.")
		if field == "" {
			field = "(record)"
		}
		return fieldErr(field, "want %s, got JSON %s", te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{Err: fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)}
	}
	return &ParseError{Err: fmt.Errorf("invalid JSON: %v", err)}
}

// durationNS converts nanoseconds to a Duration.
func durationNS(ns int64) time.Duration { return time.Duration(ns) }
