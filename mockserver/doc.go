// Package mockserver is tracebench's bundled mock GPU model server: an
// HTTP server speaking vLLM's flavour of the OpenAI API (completions and
// chat, streamed as server-sent events or not, usage with cached prompt
// tokens, vLLM's error shapes), /v1/models, /health and a Prometheus
// /metrics with vLLM V1 metric names, driven in real time by a step
// engine (package engine) that batches continuously, pages its KV cache
// and caches prefixes, so routing and batching policies see the effects
// that make them differ. Faults (errors, stalls, disconnects, slow first
// bytes, refused connections) are injected per replica from a seed. A
// Fleet runs several replicas on loopback ports.
//
// The real-time driver schedules every step against an absolute deadline
// (never one sleep per token) and measures how late steps end, exposed as
// tracebench_mock_step_lateness_seconds and by Fleet.Lateness, so a report
// can tell when the mock, not the policy, shaped a result.
package mockserver
