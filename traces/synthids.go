package traces

import "strings"

// SynthIDs returns the token ids a text of synthetic words spells (the
// inverse of the rendering SynthWords and PromptText use; generators join
// such texts with spaces and newlines, one token each way), and false
// when text is anything else: a word that is not a synthetic word or an
// id outside [VocabLo, VocabHi). A
// client uses it to send a generated prompt as token ids, so the server
// sees exactly the number of tokens the workload asked for whatever its
// tokenizer.
func SynthIDs(text string) ([]int, bool) {
	if strings.TrimSpace(text) == "" {
		return nil, false
	}
	ids := make([]int, 0, strings.Count(text, " ")+1)
	for w := range strings.FieldsSeq(text) {
		id, ok := wordID(w)
		if !ok || id < VocabLo || id >= VocabHi {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// wordID inverts writeWord: consonant-vowel syllables, least significant
// first; the last syllable is not "ba" unless it is the only one (writeWord
// stops when the id is used up).
func wordID(w string) (int, bool) {
	if len(w) == 0 || len(w)%2 != 0 || len(w) > 12 {
		return 0, false
	}
	id, scale := 0, 1
	for i := 0; i < len(w); i += 2 {
		c, v := strings.IndexByte(consonants, w[i]), strings.IndexByte(vowels, w[i+1])
		if c < 0 || v < 0 {
			return 0, false
		}
		id += (c + len(consonants)*v) * scale
		scale *= len(consonants) * len(vowels)
	}
	if len(w) > 2 && w[len(w)-2:] == "ba" {
		return 0, false
	}
	return id, true
}
