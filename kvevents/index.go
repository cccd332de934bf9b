package kvevents

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"time"

	"github.com/tracebench/tracebench/internal/minheap"
)

// MaxBackends is the most backends an Index tracks: a block's holders
// are one 64-bit mask.
const MaxBackends = 64

// DefaultBlockLimit is the default per-backend block limit (1,048,576).
const DefaultBlockLimit = 1 << 20

// Index is the exact map from block hash to the backends holding it,
// built from the backends' KV events. Memory is bounded: at most limit
// blocks per backend, so at most MaxBackends × limit entries of one hash
// and one mask each. It is safe for concurrent use.
type Index struct {
	mu        sync.RWMutex
	holders   map[uint64]uint64 // block hash → mask of backends
	counts    []int
	stats     []Stats
	blockSize int
	limit     int
	pending   minheap.Heap[pendingBatch]
	pendSeq   int64
	// modes says, per backend, how its blocks are keyed (SetHashes);
	// ext maps a rehashed backend's event hashes to the recomputed ones.
	modes   []HashMode
	ext     []map[uint64]uint64
	scratch []uint64
}

// HashMode is how an Index keys a backend's blocks.
type HashMode uint8

// Hash modes.
const (
	// HashesEngine keys blocks by the hashes in the events (the mock
	// engine's xxhash64 chains, which ChainHashes reproduces).
	HashesEngine HashMode = iota
	// HashesTokens keys blocks by ChainHashes of each BlockStored's token
	// ids, chained from the parent's recomputed hash (for engines whose
	// hash function the router does not reproduce: vLLM's sha256 or
	// seeded Python hash, llm-d-inference-sim's).
	HashesTokens
	// HashesAuto decides per backend on its first BlockStored with
	// token ids: engine when its hashes are ChainHashes of its token ids
	// from its parent (tracebench's mock), tokens otherwise.
	HashesAuto
)

// String returns "engine", "tokens" or "auto".
func (m HashMode) String() string { return [...]string{"engine", "tokens", "auto"}[m] }

// SetHashes sets how every backend's blocks are keyed (see HashMode). In
// HashesTokens a BlockStored whose token ids do not fill its blocks is
// counted malformed; one whose parent the index does not hold is an
// orphan (see Stats.Orphans) and starts a chain of its own; a parent
// hash of 0 the index does not know starts a chain (llm-d-inference-sim
// sends 0 where vLLM sends nil). Call it before applying events.
func (x *Index) SetHashes(m HashMode) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.modes = make([]HashMode, len(x.counts))
	x.ext = make([]map[uint64]uint64, len(x.counts))
	for i := range x.modes {
		x.modes[i] = m
		x.ext[i] = map[uint64]uint64{}
		x.stats[i].Hashes = m.String()
	}
}

// NewIndex returns an Index of n backends (1..MaxBackends) whose blocks
// are blockSize tokens, holding at most limit blocks per backend
// (DefaultBlockLimit when limit ≤ 0).
func NewIndex(n, blockSize, limit int) (*Index, error) {
	if n < 1 || n > MaxBackends {
		return nil, fmt.Errorf("kv event index: %d backends, want 1 to %d", n, MaxBackends)
	}
	if blockSize < 1 {
		return nil, fmt.Errorf("kv event index: block size %d, want ≥ 1", blockSize)
	}
	if limit <= 0 {
		limit = DefaultBlockLimit
	}
	x := &Index{holders: make(map[uint64]uint64), counts: make([]int, n), stats: make([]Stats, n),
		blockSize: blockSize, limit: limit}
	x.SetHashes(HashesEngine)
	return x, nil
}

// Backends returns the number of backends.
func (x *Index) Backends() int { return len(x.counts) }

// BlockSize returns tokens per block.
func (x *Index) BlockSize() int { return x.blockSize }

// Apply applies one decoded batch of backend b (out of range: ignored).
func (x *Index) Apply(b int, d Decoded) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if b < 0 || b >= len(x.counts) {
		return
	}
	st := &x.stats[b]
	st.Batches++
	if d.UnknownTags > 0 {
		st.UnknownTags += int64(d.UnknownTags)
		st.problem(fmt.Sprintf("unknown event tag %q", d.FirstUnknown))
	}
	for i := range d.Events {
		x.applyEvent(b, &d.Events[i])
	}
	st.Blocks = x.counts[b]
}

func (x *Index) applyEvent(b int, ev *Event) {
	st := &x.stats[b]
	st.Events++
	bit := uint64(1) << b
	switch ev.Kind {
	case Stored:
		if ev.BlockSize != x.blockSize {
			st.BlockSizeMismatch++
			st.problem(fmt.Sprintf("BlockStored with block_size %d, the router's is %d", ev.BlockSize, x.blockSize))
			return
		}
		hashes, ok := x.ownHashes(b, ev)
		if !ok {
			return
		}
		for i, h := range hashes {
			m := x.holders[h]
			if m&bit != 0 {
				continue
			}
			if x.counts[b] >= x.limit {
				st.Overflow++
				continue
			}
			if x.modes[b] == HashesTokens {
				x.ext[b][ev.Hashes[i]] = h
			}
			x.holders[h] = m | bit
			x.counts[b]++
		}
	case Removed:
		for _, h := range ev.Hashes {
			if x.modes[b] == HashesTokens {
				own, ok := x.ext[b][h]
				if !ok {
					continue
				}
				delete(x.ext[b], h)
				h = own
			}
			m, ok := x.holders[h]
			if !ok || m&bit == 0 {
				continue
			}
			x.setHolders(h, m&^bit)
			x.counts[b]--
		}
	case Cleared:
		st.Restarts++
		x.clear(b)
	}
}

// ownHashes returns the hashes ev's blocks are indexed by: the engine's,
// or with rehash the chain of its token ids from its parent's. Either
// way it counts an orphan: a parent block the index does not hold.
func (x *Index) ownHashes(b int, ev *Event) ([]uint64, bool) {
	if x.modes[b] == HashesAuto {
		x.decideMode(b, ev)
	}
	if x.modes[b] != HashesTokens {
		if ev.HasParent && ev.Parent != 0 && x.holders[ev.Parent]&(1<<b) == 0 {
			x.stats[b].Orphans++ // its blocks are indexed all the same, under their own hashes
		}
		return ev.Hashes, true
	}
	st := &x.stats[b]
	if len(ev.Tokens) != len(ev.Hashes)*ev.BlockSize {
		st.Malformed++
		st.problem(fmt.Sprintf("BlockStored with %d token ids for %d blocks of %d", len(ev.Tokens), len(ev.Hashes), ev.BlockSize))
		return nil, false
	}
	x.scratch = ChainHashes(x.scratch[:0], ev.Tokens, ev.BlockSize, x.ownParent(b, ev))
	return x.scratch, true
}

// ownParent returns the recomputed hash ev's chain continues from: 0 for
// a chain's first block (a nil parent, or llm-d-inference-sim's 0), the
// parent's recomputed hash when the index holds it, else, for an orphan
// whose parent was never seen, the engine's hash of that parent. An
// orphan's blocks then form a chain of their own that no prompt's chain
// (which starts from 0 or a salt) reaches, while its children attach to
// it and its removals pair up.
func (x *Index) ownParent(b int, ev *Event) uint64 {
	if !ev.HasParent {
		return 0
	}
	if p, ok := x.ext[b][ev.Parent]; ok {
		return p
	}
	if ev.Parent == 0 {
		return 0
	}
	x.stats[b].Orphans++
	return ev.Parent
}

// decideMode settles an auto backend's mode on a BlockStored that
// carries its token ids: engine when its hashes are the chain of its
// tokens from its parent, as the mock engine computes them.
func (x *Index) decideMode(b int, ev *Event) {
	if len(ev.Hashes) == 0 || len(ev.Tokens) != len(ev.Hashes)*ev.BlockSize {
		return
	}
	var parent uint64
	if ev.HasParent {
		parent = ev.Parent
	}
	x.scratch = ChainHashes(x.scratch[:0], ev.Tokens, ev.BlockSize, parent)
	m := HashesEngine
	if !slices.Equal(x.scratch, ev.Hashes) {
		m = HashesTokens
	}
	x.modes[b], x.stats[b].Hashes = m, m.String()
}

// clear forgets every block of backend b.
func (x *Index) clear(b int) {
	if x.modes[b] == HashesTokens {
		clear(x.ext[b])
	}
	if x.counts[b] == 0 {
		return
	}
	bit := uint64(1) << b
	for h, m := range x.holders {
		if m&bit != 0 {
			x.setHolders(h, m&^bit)
		}
	}
	x.counts[b] = 0
}

// setHolders records m as the mask of backends holding block h,
// forgetting h when none is left.
func (x *Index) setHolders(h, m uint64) {
	if m == 0 {
		delete(x.holders, h)
		return
	}
	x.holders[h] = m
}

// Restart records a restart of backend b seen outside the events (its
// sequence numbers went back) and forgets its blocks.
func (x *Index) Restart(b int) {
	x.Note(b, func(s *Stats) { s.Restarts++ })
	x.mu.Lock()
	defer x.mu.Unlock()
	if b >= 0 && b < len(x.counts) {
		x.clear(b)
		x.stats[b].Blocks = 0
	}
}

// Note updates backend b's Stats under the Index's lock.
func (x *Index) Note(b int, f func(*Stats)) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if b >= 0 && b < len(x.stats) {
		f(&x.stats[b])
	}
}

// Stats returns a copy of every backend's Stats, by backend.
func (x *Index) Stats() []Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return append([]Stats(nil), x.stats...)
}

// Match sets dst[b] to the number of leading hashes backend b holds, for
// every backend, and returns dst (grown to Backends()).
func (x *Index) Match(hashes []uint64, dst []int) []int {
	dst = append(dst[:0], make([]int, len(x.counts))...)
	x.mu.RLock()
	defer x.mu.RUnlock()
	alive := uint64(1)<<len(x.counts) - 1
	if len(x.counts) == MaxBackends {
		alive = ^uint64(0)
	}
	for i, h := range hashes {
		m := x.holders[h] & alive
		for lost := alive &^ m; lost != 0; lost &= lost - 1 {
			dst[bits.TrailingZeros64(lost)] = i
		}
		if alive = m; alive == 0 {
			return dst
		}
	}
	for ; alive != 0; alive &= alive - 1 {
		dst[bits.TrailingZeros64(alive)] = len(hashes)
	}
	return dst
}

// Len returns the number of distinct blocks held.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.holders)
}

// Deliver queues a batch of backend b to become visible at virtual time
// at (the simulation's event lag); Advance applies it.
func (x *Index) Deliver(at time.Duration, b int, d Decoded) {
	x.mu.Lock()
	x.pendSeq++
	x.pending.Push(pendingBatch{at: at, seq: x.pendSeq, b: b, d: d})
	x.mu.Unlock()
}

// Advance applies, in time order, every delivered batch due at or before
// now.
func (x *Index) Advance(now time.Duration) {
	for {
		x.mu.Lock()
		if p, ok := x.pending.Peek(); !ok || p.at > now {
			x.mu.Unlock()
			return
		}
		p, _ := x.pending.Pop()
		x.mu.Unlock()
		x.Apply(p.b, p.d)
	}
}

// pendingBatch is a delivered batch of backend b that becomes visible at
// virtual time at; seq is its delivery order.
type pendingBatch struct {
	at  time.Duration
	seq int64
	b   int
	d   Decoded
}

// Before orders batches by due time, then delivery order.
func (p pendingBatch) Before(q pendingBatch) bool {
	return cmp.Or(cmp.Compare(p.at, q.at), cmp.Compare(p.seq, q.seq)) < 0
}
