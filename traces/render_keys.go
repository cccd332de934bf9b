package traces

// AppendPromptKeys splits req's rendered block-id prompt (PromptTokens)
// into blocks of size tokens without rendering the leading ones: it
// appends to keys one key per leading full block lying wholly inside the
// block ids' tokens, and to tail the tokens after those blocks, and
// returns both. A block's key is the state of the generator that spells
// it (the splitmix64 state before its first token), so equal keys give
// equal tokens; unequal keys give equal tokens only with probability
// below (VocabHi−VocabLo)^−size (2^−238 for 16-token blocks), far
// under a 64-bit hash collision. It keys nothing (tail gets the whole
// prompt) when size does not divide req's tokens per block id, and
// appends nothing for Requests without block ids.
func AppendPromptKeys(keys []uint64, tail []int, req *Request, size int) ([]uint64, []int) {
	if len(req.BlockIDs) == 0 {
		return keys, tail
	}
	bs := blockSize(req)
	if size <= 0 || bs%size != 0 {
		return keys, appendPromptFrom(tail, req, 0)
	}
	covered := min(promptLen(req), len(req.BlockIDs)*bs) / size * size
	var key uint64
	for pos := 0; pos < covered; pos += size {
		i, off := pos/bs, pos%bs
		if off == 0 {
			key = blockKey(req.BlockIDs[i])
		}
		keys = append(keys, streamState(key, off))
	}
	return keys, appendPromptFrom(tail, req, covered)
}

// PromptKeyRun is the number of keys AppendPromptKeys gives per block id
// of req (its tokens per block id over size), 0 when it keys nothing. The
// keys of one block id after its first are a function of the first (the
// generator's states along that id's tokens): engine.Request.KeyRun.
func PromptKeyRun(req *Request, size int) int {
	if len(req.BlockIDs) == 0 || size <= 0 || blockSize(req)%size != 0 {
		return 0
	}
	return blockSize(req) / size
}
