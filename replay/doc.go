// Package replay runs a Workload against Backends with a Policy: the
// scheduler goroutine paces Requests to their intended arrival times,
// passes them through the Queue and the Router, and hands each to a worker
// that streams the response and stamps every chunk; Results are measured
// from the intended arrival (coordinated-omission safe) and streamed to a
// JSONL results file (package results).
//
// The policy logic lives in Dispatcher, which never reads a clock: the
// real-time loop (Run) and the virtual-time simulator (package sim) drive the same
// Dispatcher, so Routers and Queues behave identically in both.
package replay
