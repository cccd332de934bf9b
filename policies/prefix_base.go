package policies

import (
	"math/rand/v2"

	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// prefixBase is what the prefix-aware Routers that keep their own index
// share: the seeded RNG, the prompt view in the Router's units, the
// optional tokenizer for text prompts, the scratch of chained chunk
// hashes and the index_answers switch.
type prefixBase struct {
	rng  *rand.Rand
	enc  tokenizer.Tokenizer // nil: text prompts are hashed by characters
	view promptView
	// hashes is the scratch of the current prompt's chained chunk hashes.
	hashes []uint64
	// indexAnswers adds each answer to the index (index_answers).
	indexAnswers bool
}

// newPrefixBase reads index_answers from p.
func newPrefixBase(p Params, rng *rand.Rand) (prefixBase, error) {
	answers, err := p.Bool("index_answers")
	return prefixBase{rng: rng, indexAnswers: answers}, err
}

// loadPrompt loads req into the view: as the tokenizer's token ids when
// there is one and the prompt is text, else as the prompt is given.
func (b *prefixBase) loadPrompt(req *traces.Request) {
	b.view.load(req)
	if b.enc != nil && b.view.kind == kindText {
		b.view.setTokens(b.enc.Encode(b.view.text), req.InputTokens)
	}
}

// hashChunks loads req and sets hashes to the chained hashes of its
// leading chunks of chunkChars characters (chunkChars/4 tokens, at least
// one, on token views), at most maxChunks of them (0: all). It returns
// the chunk length in the view's units.
func (b *prefixBase) hashChunks(req *traces.Request, chunkChars, maxChunks int) int {
	b.loadPrompt(req)
	size := b.view.blockUnits(chunkChars, max(1, chunkChars/CharsPerToken))
	b.hashes = b.view.hashChain(b.hashes[:0], size, maxChunks)
	return size
}

// PredictsHits implements HitPredictor: the Choice's predicted hit is the
// prefix matched in the Router's own index, in its own view.
func (b *prefixBase) PredictsHits() {}
