// Package gateway is tracebench as an OpenAI-compatible HTTP gateway: it
// routes every incoming completions or chat request with one Router,
// Filter and Queue (replay.Dispatcher, the code the client-side replay
// routes with), passes it through to the chosen backend, streams the
// answer back byte for byte, and records it in the results-file format,
// timed at the gateway, with Prometheus metrics on /metrics.
//
// Many load generators, or real users, then share one router state:
// `tracebench replay --shard i/n` processes pointed at one gateway
// measure one gateway, where n client-side routers would measure n.
package gateway
