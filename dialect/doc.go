// Package dialect describes how each kind of LLM server speaks the
// OpenAI-compatible API: the extra request-body fields that make output
// lengths exact, where a response carries its token usage and cached
// prompt tokens, which Prometheus names mean running, waiting, KV usage
// and prefix-cache queries and hits, which endpoints answer health,
// model-list, tokenize and detokenize, and how to flush a server's prefix
// cache. One file per server: vllm.go, sglang.go, llamacpp.go, openai.go.
//
// The package is a leaf: it imports nothing of tracebench, so the client
// (replay), the mock server and the reports all read the same tables.
package dialect
