// Package verdict holds the statistics of a decision between policies:
// the verdict over paired seeds (mean differences with Student-t
// intervals, ties, the baseline's row), the capacity sweep it decides on
// (per policy, the runs at each offered rate and the highest sustained
// one), the two stages of bench's decision and their agreement, and how
// well a simulation predicted a measured run. It reads the Summaries of
// package metrics; package reports renders what it decides.
package verdict
