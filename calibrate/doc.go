// Package calibrate fits the mock engine's step latency model (c_prefill,
// c_decode, β, γ and the jitter) to a live run's Results alone: client-side
// send, first-token and done times, prompt, cached and output token counts
// and, from those, every backend's in-flight requests over time. Each
// successful request gives two equations: the time from its first token to
// its last is the sum of the steps it decoded through, and its time to
// first token is the step that computed its prompt plus the rest of the
// step it arrived in. A linear least-squares fit (gonum) solves them, with
// the standard error of every parameter, the residuals, and warnings for
// what the run could not identify and what to run instead.
//
// The fit assumes the engine of the mock: iteration-level batching where
// every running request gets one token per step, and steps that all
// requests of a backend see end at the same time.
package calibrate
