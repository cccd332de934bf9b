// Package reports turns results files into the figures a design review
// reads: an Accumulator folds Results and Events into bounded aggregates
// (HDR histograms at microsecond resolution, per-user, per-Backend and
// per-time-bucket sums), Finish freezes them into a Summary, and the
// renderers write a terminal table, a markdown report with SVG plots, CSV
// and JSON. Every metric has one definition, printed in the glossary at the
// end of the markdown report (see Glossary) and listed in docs/reports.md.
//
// Memory does not grow with the number of Requests: a million-request
// results file is reported in bounded memory by Summarize, which streams it.
package reports
