package tokenizer

import "strconv"

// outputWords are the words generated text is made of: common English
// words, most of them one cl100k_base token with a leading space.
var outputWords = []string{
	"the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
	"not", "he", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they",
	"you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more",
	"when", "will", "would", "who", "so", "no", "time", "about", "many", "then", "them", "these",
	"some", "what", "out", "other", "into", "only", "new", "first", "also", "after", "two", "over",
	"like", "model", "token", "cache", "batch", "block", "server", "request", "policy", "data", "value",
	"system", "user", "answer", "question", "result", "number", "light", "water", "world", "house",
	"river", "stone", "green", "small", "large", "early", "later", "under", "above", "short", "long",
}

// OutputVocab maps the token ids a mock engine generates to their text.
// Ids are chosen so the text tokenises back to the same id under the
// tokenizer it was built for, so a response sent back in a later turn
// meets its own cached blocks.
type OutputVocab struct {
	ids  []int
	text map[int]string
}

// NewOutputVocab builds the output vocabulary for tok.
func NewOutputVocab(tok Tokenizer) OutputVocab {
	v := OutputVocab{text: make(map[int]string)}
	if tok.Name() == "character" {
		for c := 'a'; c <= 'z'; c++ {
			v.add(int(c), string(c))
		}
		return v
	}
	for _, w := range outputWords {
		if ids := tok.Encode(" " + w); len(ids) == 1 {
			v.add(ids[0], " "+w)
		}
	}
	return v
}

func (v *OutputVocab) add(id int, text string) {
	if _, dup := v.text[id]; dup {
		return
	}
	v.ids = append(v.ids, id)
	v.text[id] = text
}

// IDs are the vocabulary's token ids (the engine draws from them).
func (v OutputVocab) IDs() []int { return v.ids }

// Word returns the text of token id (with its leading space).
func (v OutputVocab) Word(id int) string {
	if s, ok := v.text[id]; ok {
		return s
	}
	return " t" + strconv.Itoa(id)
}
