package textfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NA is how a figure that could not be measured is shown.
const NA = "n/a"

// Num formats v with about three significant digits (no exponent for
// ordinary magnitudes); NaN shows as n/a.
func Num(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return NA
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', -1, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Count formats an integer count.
func Count(n int64) string { return strconv.FormatInt(n, 10) }

// CountF formats a count held in a float (NaN shows as n/a).
func CountF(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NA
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

// Pct formats a fraction as a percentage with one decimal.
func Pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NA
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + " %"
}

// Share is Pct that shows shares under 0.05 % as "< 0.1 %"
// rather than a misleading 0.
func Share(v float64) string {
	if v > 0 && v < 0.0005 {
		return "< 0.1 %"
	}
	return Pct(v)
}

// Frac formats a fraction in [0, 1] with three decimals.
func Frac(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NA
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// ErrorList formats error counts as "class n, class n" by class name.
func ErrorList(m map[string]int64) string {
	var parts []string
	for _, k := range NaturalKeys(m) {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// GapPts formats the difference of two rates in percentage points
// with its sign ("+6.1", "-0.3"); n/a when either is unknown.
func GapPts(a, b float64) string {
	d := math.Round(1000*(a-b)) / 10
	switch {
	case math.IsNaN(d) || math.IsInf(d, 0):
		return NA
	case d == 0: // also −0: a gap under 0.05 points has no sign
		return "0.0"
	}
	return fmt.Sprintf("%+.1f", d)
}

// Capitalize upper-cases the first letter of an ASCII sentence.
func Capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
