package engine

import (
	"encoding/binary"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Request is one generation request given to Add.
type Request struct {
	// ID names the request in Events and Abort; unique among live requests.
	ID string
	// Tag is the caller's number for the request, echoed in its Events
	// (Event.Tag) so a caller can find its own state without looking the
	// ID up; the engine does not read it (default 0).
	Tag int64
	// Prompt holds the prompt's token ids (at least one with PromptKeys
	// empty), or with PromptKeys only the tokens after the keyed blocks.
	Prompt []int
	// PromptKeys, when set, stand for the prompt's leading full blocks
	// (Config.BlockSize tokens each) in place of their tokens: the caller
	// vouches that two keys are equal exactly when the blocks' tokens are
	// (to within a 64-bit hash collision), e.g. the state of the generator
	// that spells them. The engine chains keys as it chains token blocks'
	// hashes, so keyed prompts share cached prefixes with one another as
	// their tokens would. They cannot be used when the engine must keep
	// every prompt token (see Engine.KeepsTokens); Add rejects them then.
	// The prompt has BlockSize×len(PromptKeys) + len(Prompt) tokens.
	PromptKeys []uint64
	// KeyRun says that PromptKeys come in runs of KeyRun keys from the
	// first (a run being the blocks of one trace block id), and that the
	// later keys of a run are a function of its first (the generator's
	// states along one id's tokens). The engine then indexes a run's blocks
	// in groups under one hash (blockGroups). It must be the same for
	// every request of an engine whose keys may coincide; 0 is read as 1
	// (every key its own run).
	KeyRun int
	// MaxTokens is the most output tokens to generate (≥ 1).
	MaxTokens int
	// MinTokens is the fewest output tokens before end-of-sequence may be
	// generated (vLLM's min_tokens; default 0).
	MinTokens int
	// IgnoreEOS generates exactly MaxTokens tokens (vLLM's ignore_eos).
	IgnoreEOS bool
	// CacheSalt, when set, seeds the request's block hash chain, so only
	// requests with the same salt share cached blocks (vLLM's cache_salt;
	// the server also salts with a LoRA adapter's name, as vLLM keys
	// blocks by adapter).
	CacheSalt string
	// LoRA names the adapter the request runs with ("" = the base model).
	// It counts against Config.LoRA.MaxLoras; the caller salts the cache
	// with it too (CacheSalt).
	LoRA string
	// RemoteTokens is the number of leading prompt tokens whose KV cache
	// arrived from a remote prefill instance (vLLM's do_remote_prefill):
	// at first admission they count as computed without prefill work,
	// except the last prompt token, which is computed again to sample the
	// first output token, as vLLM's scheduler does. Their full blocks then
	// enter the prefix cache like computed ones. Default 0: none.
	RemoteTokens int
	// Slot, when set, runs the request on that slot of the per-slot cache
	// (llama.cpp's id_slot, from 0): it waits while the slot is busy,
	// letting later requests pass, and reuses only the slot's common
	// prefix, with no save to or restore from the host cache (the server
	// takes a named slot without get_available_slot's prompt-cache
	// update, b7099). Nil lets the engine choose; engines without slots
	// ignore it.
	Slot *int
	// RanOn, when set and Slot is not, is the slot the measured server
	// chose for the request (a replay of a measured run, where the server
	// said which): the request waits while that slot is busy and takes it
	// with the save and restore the server's own choice implies (see
	// slotCache.placeAt). Nil lets the engine choose; engines without
	// slots ignore it.
	RanOn *int
}

// seq is the engine's state of one live request.
type seq struct {
	req Request
	// tokens holds the request's token ids (their low 32 bits: all the
	// block hash reads) from position base on: the prompt then the
	// generated ids.
	tokens []int32
	// base is the leading tokens not kept: whole prompt blocks already
	// folded into hashes at Add (0 when the per-slot cache or a block
	// event hook needs every token).
	base       int
	promptLen  int
	computed   int     // tokens whose KV is in the cache
	registered int     // leading full blocks registered in the prefix table
	runs       keyRuns // which blocks are keyed, and their groups
	blocks     []int32 // KV blocks held, in order
	hashes     []uint64
	arrival    time.Duration
	admitted   bool // scheduled at least once (cached tokens known)
	cached     int  // prompt tokens served from the prefix cache at first admission
	firstDone  bool // first output token emitted
	tokSeed    uint64
	reasoning  int    // leading output tokens that are reasoning (Config.Reasoning)
	salt       uint64 // parent hash of the first block
	running    bool
	slot       int // per-slot cache: the slot held while running, −1 none
	// saved is the tokens the per-slot cache's save to the host prompt
	// cache copied when s took its slot (0: none).
	saved int
	// detached marks a request whose client left while it waited outside
	// the HTTP workers: it is dropped at its first token (ClientGone).
	detached bool
}

func (s *seq) numTokens() int { return s.base + len(s.tokens) }
func (s *seq) numOutput() int { return s.numTokens() - s.promptLen }

// span returns the kept tokens at positions lo..hi−1, or nil when some
// of them were folded into hashes and dropped.
func (s *seq) span(lo, hi int) []int32 {
	if lo < s.base {
		return nil
	}
	return s.tokens[lo-s.base : hi-s.base]
}

// blockHashes extends s.hashes to cover the first n full blocks, each the
// xxhash of its parent's hash followed by its tokens (4 bytes little
// endian each), and returns them.
func (s *seq) blockHashes(n, bs int) []uint64 {
	if len(s.hashes) >= n {
		return s.hashes[:n]
	}
	parent := s.salt
	if k := len(s.hashes); k > 0 {
		parent = s.hashes[k-1]
	}
	var h blockHasher
	for i := len(s.hashes); i < n; i++ {
		parent = hashBlock(&h, parent, s.span(i*bs, (i+1)*bs))
		s.hashes = append(s.hashes, parent)
	}
	return s.hashes
}

// appendHashes appends to dst the chained hashes of the first n full
// blocks of bs tokens, chained from parent.
func appendHashes[T int | int32](dst []uint64, parent uint64, tokens []T, bs, n int) []uint64 {
	var h blockHasher
	for i := range n {
		parent = hashBlock(&h, parent, tokens[i*bs:(i+1)*bs])
		dst = append(dst, parent)
	}
	return dst
}

// blockHasher is a block hash's scratch: blocks of up to 64 tokens hash
// without allocating.
type blockHasher struct {
	scratch [8 + 4*64]byte
}

// hashBlock is the xxhash of parent followed by the block's tokens (the
// low 32 bits of each, little endian).
func hashBlock[T int | int32](h *blockHasher, parent uint64, toks []T) uint64 {
	var buf []byte
	if n := 8 + 4*len(toks); n <= len(h.scratch) {
		buf = h.scratch[:n]
	} else {
		buf = make([]byte, n)
	}
	binary.LittleEndian.PutUint64(buf, parent)
	for j, t := range toks {
		binary.LittleEndian.PutUint32(buf[8+4*j:], uint32(t))
	}
	return xxhash.Sum64(buf)
}

// appendKeyHashes appends to dst the chained hashes of the blocks standing
// for keys (Request.PromptKeys), chained from parent: each is
// mix64(parent ⊕ mix64(key)), which, mix64 being a bijection, differs
// from its siblings' (same parent, other key) and its cousins' (same key,
// other parent) and otherwise collides with probability 2^−64, as the
// xxhash of a token block does.
func appendKeyHashes(dst []uint64, parent uint64, keys []uint64) []uint64 {
	for _, k := range keys {
		parent = mix64(parent ^ mix64(k))
		dst = append(dst, parent)
	}
	return dst
}

// blockHashes returns the chained hashes of the full blocks of tokens, as
// the engine computes them (kvevents.ChainHashes computes the same).
func blockHashes(tokens []int, blockSize int, salt string) []uint64 {
	n := len(tokens) / blockSize
	return appendHashes(make([]uint64, 0, n), saltHash(salt), tokens, blockSize, n)
}

// mix64 is a 64-bit finaliser (SplitMix64).
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// draw returns the i-th deterministic 64-bit draw of s.
func (s *seq) draw(i int) uint64 { return mix64(s.tokSeed ^ mix64(uint64(i)+1)) }

// nextToken returns the id of the i-th generated token.
func (s *seq) nextToken(i int, vocab []int) int {
	r := s.draw(2 * i)
	if len(vocab) > 0 {
		return vocab[r%uint64(len(vocab))]
	}
	return int(r % VocabSize)
}

// eos reports whether the i-th generated token ends the sequence.
func (s *seq) eos(i int, p float64) bool {
	if p == 0 || s.req.IgnoreEOS || i < s.req.MinTokens {
		return false
	}
	return float64(s.draw(2*i+1)>>11)/(1<<53) < p
}

// saltHash is the parent hash of a chain's first block: 0 without salt.
func saltHash(salt string) uint64 {
	if salt == "" {
		return 0
	}
	return xxhash.Sum64String(salt)
}
