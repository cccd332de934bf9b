// Package traces defines the Request record every other package speaks, the
// Source interface that yields Requests in arrival order, readers for the
// public trace formats and the native JSONL format, and seeded workload
// generators.
//
// A Request carries what a replay needs to reproduce the original traffic:
// its arrival offset, its user and session, and its prompt in one of three
// forms (text, chat messages, or block ids standing for token blocks), plus
// the output length the server must produce.
package traces
