// Package kvevents speaks vLLM's KV cache event protocol: the engine
// publishes, per replica, msgpack batches of BlockStored, BlockRemoved and
// AllBlocksCleared events on a ZeroMQ PUB socket as multipart messages
// [topic, sequence (8-byte big-endian), payload], and serves missed
// batches on a ROUTER replay socket (vLLM's --kv-events-config with the
// "zmq" publisher; vllm/distributed/kv_events.py).
//
// The package holds the wire codec (Encode, Decode), a Publisher the mock
// engine uses, a Subscriber that follows one replica with gap detection
// and replay, the chain hash the mock engine keys its blocks by
// (ChainHashes), and Index, an exact map of which backend holds which
// block, which the precise-prefix router reads. It imports nothing of
// tracebench, so the mock server, the replay and the policies can all use
// it.
package kvevents
