// Package textfmt formats the figures of reports and verdicts as text:
// numbers with about three significant digits, counts, percentages and
// shares, "n/a" for what could not be measured, error lists, and keys in
// natural order ("bin2" before "bin10").
package textfmt
