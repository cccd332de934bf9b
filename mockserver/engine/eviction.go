package engine

import (
	"fmt"
	"strings"
)

// Eviction policies of Config.Eviction: the order in which the prefix
// cache gives up cached blocks nobody uses when a request needs a fresh
// block and no uncached block is free.
const (
	// EvictLRU is vLLM V1's policy: cached blocks leave in the order their
	// last user released them, and a finishing request releases its blocks
	// tail first, so its longest prefix goes first (the free block queue of
	// vllm/v1/core/block_pool.py; vLLM's design doc
	// https://docs.vllm.ai/en/latest/design/prefix_caching.html, "Free" and
	// "Eviction (LRU)"). Blocks released in the same step by different
	// requests leave in the order the requests finished. The default of
	// every preset (all are vLLM-flavoured).
	EvictLRU = "lru"
	// EvictLRULongest orders by the time the last user released a block,
	// then, among blocks released at the same time, the longest prefix
	// (deepest block) first, then block id: the cache pool of the
	// hash-prefix-caching report (Lin, 2024) and of vLLM V0's LRUEvictor
	// (vllm/core/evictor.py). The engine's original policy, used when
	// Config.Eviction is empty.
	EvictLRULongest = "lru-longest"
	// EvictLFU evicts the block requests used least often first (each
	// request that computes or hits a block counts one use; the count
	// restarts when the block is evicted), then as EvictLRULongest: the
	// frequency-first policy the report proposes as future work. Counts
	// never decay, so blocks that were popular once stay until colder
	// blocks are gone.
	EvictLFU = "lfu"
)

// EvictionPolicies lists the values of Config.Eviction, in the order of
// the documentation.
func EvictionPolicies() []string { return []string{EvictLRU, EvictLRULongest, EvictLFU} }

// evictionPolicy resolves the empty value to EvictLRULongest and rejects
// unknown names.
func evictionPolicy(name string) (string, error) {
	switch name {
	case "":
		return EvictLRULongest, nil
	case EvictLRU, EvictLRULongest, EvictLFU:
		return name, nil
	}
	return "", fmt.Errorf("engine config: Eviction %q: want one of %s", name, strings.Join(EvictionPolicies(), ", "))
}

// newEvictor returns the evictor of a valid policy name.
func newEvictor(policy string, p *blockPool) evictor {
	switch policy {
	case EvictLRU:
		return &lruEvictor{pool: p, head: -1, tail: -1}
	case EvictLFU:
		return newHeapEvictor(p, lfuLess)
	default:
		return newHeapEvictor(p, lruLongestLess)
	}
}
