package engine

// ResetPrefixCache drops every cached prefix block that no request uses,
// as vLLM's /reset_prefix_cache and SGLang's /flush_cache do, and
// reports whether it did: like them it refuses (false, nothing dropped)
// while any request is waiting or running, since their blocks could not
// be dropped.
func (e *Engine) ResetPrefixCache() bool {
	if !e.Idle() {
		return false
	}
	e.pool.dropCached()
	return true
}

// dropCached moves every cached block without users to the free list,
// unregistered. Dropping is not eviction: the evictions count is kept.
func (p *blockPool) dropCached() {
	for p.evict.Len() > 0 {
		id := p.evict.pop()
		b := &p.blocks[id]
		p.table.del(b.hash)
		b.hashed, b.hash, b.depth = false, 0, 0
		p.free = append(p.free, id)
	}
}
