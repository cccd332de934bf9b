// Package engine is the mock GPU model server's step engine: a
// deterministic, clock-free state machine that schedules requests the way
// vLLM V1 does and returns how long each iteration takes.
//
// Each Step admits waiting requests under Config.MaxNumSeqs and a
// Config.MaxNumBatchedTokens budget (chunked prefill), computes one token
// for every running sequence whose prompt is done, and returns the step's
// Duration from the LatencyModel together with the per-request Events that
// become visible at Start+Duration. A paged KV cache of Config.NumGPUBlocks
// blocks of Config.BlockSize tokens holds prompt and generated tokens; full
// blocks are identified by chained xxhash hashes and stay cached after their
// last user releases them, until evicted under Config.Eviction: vLLM V1's
// least-recently-released order (EvictLRU, every preset's), least recently
// used then longest prefix (EvictLRULongest, the hash-prefix-caching
// report's and vLLM V0's), or least frequently used (EvictLFU). Prefix hits follow vLLM:
// whole blocks only, and the last prompt token is always recomputed. When
// blocks run out the newest running request is preempted and later
// recomputed, as vLLM's recompute preemption does.
//
// The engine never reads a clock: every method takes the current time as a
// time.Duration from an arbitrary origin, so the same engine runs in real
// time (package mockserver's driver) and in virtual time (a simulator).
// An Engine is not safe for concurrent use.
package engine
