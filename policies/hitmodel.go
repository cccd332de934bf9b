package policies

import "github.com/tracebench/tracebench/traces"

// Defaults of the hit model that affinity Routers (chwbl,
// session-affinity) keep only to report a predicted hit: vLLM's 16-token
// block (64 characters at CharsPerToken) and the GIE prefix plugin's
// 31,250 blocks per server when the server does not report num_gpu_blocks.
const (
	hitModelChunkChars = 64
	hitModelCapacity   = 31250
)

// hitModel predicts the prefix hit of a pick for Routers that decide
// without a cache view: it keeps the same approximate per-backend LRU of
// chained block hashes as approx-prefix, consulted for the chosen Backend
// only and never for the decision.
type hitModel struct {
	index  *blockIndex
	view   promptView
	hashes []uint64
}

func newHitModel() *hitModel { return &hitModel{index: newBlockIndex(hitModelCapacity)} }

// observe returns the prompt tokens of req that b is expected to hold and
// records req's blocks for b.
func (m *hitModel) observe(req *traces.Request, b Backend) int {
	m.view.load(req)
	size := m.view.blockUnits(hitModelChunkChars, hitModelChunkChars/CharsPerToken)
	m.hashes = m.view.hashChain(m.hashes[:0], size, 0)
	return m.view.toTokens(m.index.add(m.hashes, b) * size)
}
