package engine

import "time"

// KVTransferConfig is the cost of moving a prefill instance's KV cache to
// a decode instance (vLLM's NixlConnector pull). Like
// Config.RequestOverhead it is time outside the engine's steps: the mock
// server holds a decode request this long before its engine sees it, and
// the simulator adds the request to its decode engine this much later.
type KVTransferConfig struct {
	// Latency is the fixed cost of one transfer (the decode instance's
	// handshake and read request to the prefill instance, and the
	// completion notice), default 1 ms.
	Latency time.Duration
	// PerToken is the cost of each transferred prompt token, default
	// 10.5 µs: 128 KiB of fp16 KV per token of an 8B Llama-class model
	// (32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 B) over one
	// 100 Gb/s RDMA link at line rate (12.5 GB/s).
	PerToken time.Duration
}

// DefaultKVTransfer returns the default transfer cost: 1 ms fixed (an
// assumption, about two round trips in one data centre) and 10.5 µs per
// token (derived in KVTransferConfig.PerToken).
func DefaultKVTransfer() KVTransferConfig {
	return KVTransferConfig{Latency: time.Millisecond, PerToken: 10500 * time.Nanosecond}
}

// Time returns the duration of a transfer of tokens prompt tokens: the
// fixed latency plus the per-token cost (0 tokens: no transfer, 0).
func (c KVTransferConfig) Time(tokens int) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return c.Latency + time.Duration(tokens)*c.PerToken
}
