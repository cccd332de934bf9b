package policies

import (
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
	"github.com/tracebench/tracebench/traces"
)

// CharsPerToken is the average number of characters per token used to
// convert character-based block sizes to tokens on token-exact Requests and
// character matches to tokens when a Request states no token count (4, as
// the GIE prefix plugin's averageCharactersPerToken).
const CharsPerToken = 4

// promptKind says which units a prompt view is measured in.
type promptKind uint8

const (
	// kindText is text measured in UTF-8 bytes (characters).
	kindText promptKind = iota
	// kindTokens is a sequence of token ids.
	kindTokens
	// kindBlocks is a sequence of block ids standing for blockSize tokens
	// each (Mooncake hash_ids), the last one possibly partial.
	kindBlocks
)

// promptView is the prompt of one Request as a prefix-aware Router sees
// it: text, token ids or block ids, never rendered more than needed. A
// Request with no prompt content (only InputTokens) is one block unique to
// its ID, as traces.PromptText renders it (words no other Request shares).
type promptView struct {
	kind      promptKind
	text      string
	tokens    []int
	blocks    []uint64
	blockSize int // tokens per block id (kindBlocks)
	units     int // bytes (kindText) or tokens (kindTokens, kindBlocks)
	reqTokens int // the Request's prompt tokens (InputTokens, else estimated)
	seed      uint64
	uniq      [1]uint64
}

// load fills v from req. seed starts every hash chain (model and LoRA).
func (v *promptView) load(req *traces.Request) {
	*v = promptView{seed: modelSeed(req)}
	switch {
	case len(req.TokenIDs) > 0:
		v.kind, v.tokens, v.units = kindTokens, req.TokenIDs, len(req.TokenIDs)
	case len(req.BlockIDs) > 0:
		bs := req.BlockSize
		if bs <= 0 {
			bs = 512
		}
		v.kind, v.blocks, v.blockSize = kindBlocks, req.BlockIDs, bs
		v.units = len(req.BlockIDs) * bs
		if req.InputTokens > 0 && req.InputTokens < v.units {
			v.units = req.InputTokens
		}
	case req.Prompt != "" || len(req.Messages) > 0:
		v.kind, v.text = kindText, traces.PromptText(req)
		v.units = len(v.text)
	default:
		v.uniq[0] = xxhash.Sum64String(req.ID)
		v.kind, v.blocks, v.blockSize, v.units = kindBlocks, v.uniq[:], max(req.InputTokens, 1), req.InputTokens
	}
	v.reqTokens = req.InputTokens
	if v.reqTokens <= 0 {
		v.reqTokens = v.units
		if v.kind == kindText {
			v.reqTokens = v.units / CharsPerToken
		}
	}
}

// setTokens replaces a text view by its token ids (a tokenizer's output),
// keeping the Request's stated token count for conversions, or taking the
// tokenizer's count when the Request states none.
func (v *promptView) setTokens(ids []int, stated int) {
	v.kind, v.text, v.tokens, v.units = kindTokens, "", ids, len(ids)
	if stated <= 0 {
		v.reqTokens = len(ids)
	}
}

// modelSeed hashes the model and LoRA adapter names so that Requests for
// different adapters never share a hash chain (GIE proposal: prefix cache
// must be LoRA aware).
func modelSeed(req *traces.Request) uint64 {
	if req.Model == "" && req.LoRA == "" {
		return 0
	}
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(req.Model)
	_, _ = d.WriteString("\x00")
	_, _ = d.WriteString(req.LoRA)
	return d.Sum64()
}

// blockUnits returns the block length in this view's units for a router
// whose block is chars characters on text and toks tokens on token views.
func (v *promptView) blockUnits(chars, toks int) int {
	if v.kind == kindText {
		return chars
	}
	return toks
}

// toTokens converts n matched units of this view to tokens of the Request,
// proportionally when units are characters (or tokens of another
// tokenizer) and capped at the Request's prompt length.
func (v *promptView) toTokens(n int) int {
	if n <= 0 || v.units == 0 {
		return 0
	}
	if n >= v.units {
		return v.reqTokens
	}
	return int(int64(n) * int64(v.reqTokens) / int64(v.units))
}

// hashChain appends to dst the chained hashes of the view's full blocks of
// size units (a partial tail block is dropped), at most maxBlocks of them
// (0 = no limit): hash(i) = xxhash64 seeded with hash(i-1) over block i's
// content, hash(-1) = the model seed (vLLM's and AIBrix's scheme). On
// block-id views the content of a block is the ids of the trace blocks it
// spans, which is exact: equal ids at equal positions are equal tokens.
func (v *promptView) hashChain(dst []uint64, size, maxBlocks int) []uint64 {
	if size <= 0 {
		return dst
	}
	n := v.units / size
	if maxBlocks > 0 && n > maxBlocks {
		n = maxBlocks
	}
	var d xxhash.Digest
	parent := v.seed
	for i := 0; i < n; i++ {
		lo, hi := i*size, (i+1)*size
		switch v.kind {
		case kindText:
			d.ResetWithSeed(parent)
			_, _ = d.WriteString(v.text[lo:hi])
			parent = d.Sum64()
		case kindTokens:
			parent = hashTokens(&d, parent, v.tokens[lo:hi])
		case kindBlocks:
			parent = v.blockHash(&d, parent, lo/v.blockSize, (hi-1)/v.blockSize)
		}
		dst = append(dst, parent)
	}
	return dst
}

// blockHash hashes the block ids first..last chained to parent.
func (v *promptView) blockHash(d *xxhash.Digest, parent uint64, first, last int) uint64 {
	var buf [16]byte
	if first == last {
		binary.LittleEndian.PutUint64(buf[:8], parent)
		binary.LittleEndian.PutUint64(buf[8:], v.blocks[first])
		return xxhash.Sum64(buf[:])
	}
	d.ResetWithSeed(parent)
	for _, id := range v.blocks[first : last+1] {
		binary.LittleEndian.PutUint64(buf[:8], id)
		_, _ = d.Write(buf[:8])
	}
	return d.Sum64()
}

// hashTokens hashes token ids (4 bytes each, little endian) chained to
// parent, packing them into a stack buffer to write in few calls.
func hashTokens(d *xxhash.Digest, parent uint64, toks []int) uint64 {
	var buf [256]byte
	d.ResetWithSeed(parent)
	n := 0
	for _, t := range toks {
		binary.LittleEndian.PutUint32(buf[n:], uint32(t))
		n += 4
		if n == len(buf) {
			_, _ = d.Write(buf[:])
			n = 0
		}
	}
	_, _ = d.Write(buf[:n])
	return d.Sum64()
}
