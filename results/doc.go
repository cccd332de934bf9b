// Package results is the record of a Run: the Result of each Request,
// the Events between them, the run header (Header, RunConfig) and the
// stop line (Stop, its reasons and the Extra figures' keys), and the
// JSONL results file that holds them, written incrementally (Create),
// read back tolerating a cut-off last line (Reader, Each) and merged
// across shards (Merge). replay writes it, sim writes the same, and
// metrics, calibrate and the reports read it.
package results
