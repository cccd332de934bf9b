package traces

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Time units of numeric trace timestamps, for ReadOptions.TimeUnit.
const (
	UnitSeconds      = "s"
	UnitMilliseconds = "ms"
	UnitMicroseconds = "us"
	UnitNanoseconds  = "ns"
)

// TimeUnits lists the accepted ReadOptions.TimeUnit values.
var TimeUnits = []string{UnitSeconds, UnitMilliseconds, UnitMicroseconds, UnitNanoseconds}

// timeUnit is a unit of numeric timestamps: its name and its length.
type timeUnit struct {
	name string
	d    time.Duration
}

// parseTimeUnit returns the unit named s, or def when s is empty.
func parseTimeUnit(s string, def timeUnit) (timeUnit, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return def, nil
	case UnitSeconds:
		return timeUnit{UnitSeconds, time.Second}, nil
	case UnitMilliseconds:
		return timeUnit{UnitMilliseconds, time.Millisecond}, nil
	case UnitMicroseconds:
		return timeUnit{UnitMicroseconds, time.Microsecond}, nil
	case UnitNanoseconds:
		return timeUnit{UnitNanoseconds, time.Nanosecond}, nil
	}
	return timeUnit{}, fmt.Errorf("ReadOptions.TimeUnit %q: want one of %s", s, strings.Join(TimeUnits, ", "))
}

var (
	unitS  = timeUnit{UnitSeconds, time.Second}
	unitMS = timeUnit{UnitMilliseconds, time.Millisecond}
)

// toDuration converts a non-negative finite time v in unit u to a
// Duration; a value out of range is an error naming the field, the value
// with its unit and the range.
func (u timeUnit) toDuration(field string, v float64) (time.Duration, error) {
	limit := float64(math.MaxInt64) / float64(u.d)
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v >= limit {
		return 0, fieldErr(field, "time %v %s out of range: want 0 to %.4g %s (about 292 years)", v, u.name, limit, u.name)
	}
	return nsDur(v * float64(u.d)), nil
}

// defaultUnits is the timestamp unit of each format whose times are bare
// numbers (the formats --time-unit applies to).
var defaultUnits = map[string]timeUnit{
	FormatMooncake: unitMS,
	FormatVTC:      unitS,
	FormatBurstGPT: unitS,
	FormatBailian:  unitS,
	FormatRAGPulse: unitS,
}

// numericTimeFormats lists the formats --time-unit applies to, sorted.
func numericTimeFormats() []string {
	var out []string
	for _, f := range Formats {
		if _, ok := defaultUnits[f]; ok {
			out = append(out, f)
		}
	}
	return out
}
