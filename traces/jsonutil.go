package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// jsonFieldErr turns an encoding/json error into a ParseError naming the
// field when json knows it.
func jsonFieldErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
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

// maxSeconds is the largest time offset a trace may state (about 292
// years, the range of time.Duration).
const maxSeconds = float64(math.MaxInt64) / float64(time.Second)

// secondsToDuration converts a non-negative finite number of seconds to a
// Duration, checking its range.
func secondsToDuration(field string, s float64) (time.Duration, error) {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 || s >= maxSeconds {
		return 0, fieldErr(field, "time %v out of range", s)
	}
	return nsDur(s * float64(time.Second)), nil
}
