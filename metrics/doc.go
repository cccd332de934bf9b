// Package metrics turns Results into the figures a design review reads:
// an Accumulator folds Results and Events into bounded aggregates (HDR
// histograms at microsecond resolution, per-user, per-Backend and
// per-time-bucket sums), Finish freezes them into a Summary, with the
// run's warnings, fairness, cost, sessions, reasoning and KV-event
// figures. Package reports renders Summaries; package verdict decides
// between them.
//
// Memory does not grow with the number of Requests: a million-request
// results file is summarised in bounded memory by Summarize, which
// streams it.
package metrics
