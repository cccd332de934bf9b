// Package bench runs tracebench benchmarks from a Go program: Run replays
// one workload with one policy (what `tracebench replay` does once its
// flags are parsed); Decide finds every router's capacity under the SLO
// in virtual time and confirms the leaders in real time on mock fleets
// (what `tracebench bench` does without a backend flag, its main job);
// Compare runs several routers side by side on fresh fleets at one rate
// and decides which is better (what `tracebench bench` does with --mock,
// --sim or --target); and Sweep finds each router's sustained rate under
// an SLA (what `tracebench sweep` does). They write the same files as the
// command line: results files (JSONL) and, for a decision, a comparison
// or a sweep, its report.
//
// A Spec starts from DefaultWorkload, DefaultPolicy and DefaultClient,
// the command line's defaults. With Spec.Sim > 0 the Run goes to
// simulated engines in virtual time, deterministic and without HTTP;
// otherwise to Spec.Backends, the base URLs of OpenAI-compatible servers:
// live ones, or a MockFleet of in-process mock servers that
// MockFleet.Start (one Run) or MockFleet.Setup (each Run of a Compare or
// Sweep) starts. A bad field is a UsageError naming its path, as
// "Spec.Policy.Router". See Example_comparePolicies and
// Example_compareOnMockFleet.
//
// Packages plan (sizing a fleet), predict (predicting a measured run)
// and probe (the calibration probe of live servers) build on Run;
// package search is the rate search Sweep runs.
package bench
