// Package bench runs tracebench benchmarks from a Go program: Run replays
// one workload with one policy (what `tracebench replay` does once its
// flags are parsed) and Sweep finds each router's sustained rate under an
// SLA (what `tracebench sweep` does). Both write the same files as the
// command line: results files (JSONL) and, for a sweep, its report.
//
// A Spec starts from DefaultWorkload, DefaultPolicy and DefaultClient,
// the command line's defaults. With Spec.Sim > 0 the Run goes to
// simulated engines in virtual time, deterministic and without HTTP;
// otherwise to Spec.Backends, the base URLs of OpenAI-compatible servers.
// See Example_comparePolicies.
package bench
