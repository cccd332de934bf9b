package policies

import "github.com/tracebench/tracebench/traces"

// Defaults of the shared hit model: vLLM's 16-token block (64 characters
// at CharsPerToken) and the GIE prefix plugin's 31,250 blocks per server
// when the server does not report num_gpu_blocks.
const (
	hitModelChunkChars = 64
	hitModelCapacity   = 31250
)

// HitModel predicts the prefix hit of the picks of a Router that decides
// without a cache view: per Backend, an LRU of the chained block hashes of
// the prompts sent to it, of capacity num_gpu_blocks (else 31,250 blocks),
// as approx-prefix keeps. It is consulted for the chosen Backend only and
// never for the decision. Unlike approx-prefix's table it never asks which
// Backends hold a hash, so one open-addressing table keyed by (hash,
// Backend) serves every lookup in one probe run however widely a Router
// spreads prompts. Two different (hash, Backend) pairs share a key with
// probability about 2⁻⁶⁴ per pair, which can only misstate a prediction.
// A HitModel is owned by one goroutine.
type HitModel struct {
	table  hitTable
	lists  []lruList // by Backend.Index
	keys   []uint64  // by node
	links  lruLinks  // by node
	free   []int32
	view   promptView
	hashes []uint64
}

// NewHitModel returns an empty HitModel.
func NewHitModel() *HitModel { return &HitModel{} }

// Observe returns the prompt tokens of req that b is expected to hold and
// records req's blocks for b.
func (m *HitModel) Observe(req *traces.Request, b Backend) int {
	m.view.load(req)
	size := m.view.blockUnits(hitModelChunkChars, hitModelChunkChars/CharsPerToken)
	m.hashes = m.view.hashChain(m.hashes[:0], size, 0)
	return m.view.toTokens(m.add(b) * size)
}

// add makes m.hashes b's most recent blocks, evicting its least recent
// beyond capacity, and returns how many leading hashes b held before.
func (m *HitModel) add(b Backend) int {
	if b.Index < 0 {
		return 0
	}
	l := lruListAt(&m.lists, b.Index)
	limit := hitModelCapacity
	if b.NumGPUBlocks > 0 {
		limit = b.NumGPUBlocks
	}
	salt := mix64(uint64(b.Index) + 1)
	lead := 0
	for i, h := range m.hashes {
		key := h ^ salt
		n, ok := m.table.get(key)
		if ok {
			if lead == i {
				lead++
			}
			m.links.unlink(l, n)
		} else {
			for l.n >= limit && l.tail >= 0 {
				m.evict(l)
			}
			n = m.alloc(key)
			m.table.put(key, n)
		}
		m.links.pushFront(l, n)
	}
	for l.n > limit && l.tail >= 0 {
		m.evict(l)
	}
	return lead
}

func (m *HitModel) alloc(key uint64) int32 {
	if k := len(m.free); k > 0 {
		n := m.free[k-1]
		m.free = m.free[:k-1]
		m.keys[n] = key
		return n
	}
	m.keys = append(m.keys, key)
	m.links.appendNode()
	return int32(len(m.keys) - 1)
}

// evict drops l's least recent block.
func (m *HitModel) evict(l *lruList) {
	n := l.tail
	m.links.unlink(l, n)
	m.table.del(m.keys[n])
	m.free = append(m.free, n)
}
