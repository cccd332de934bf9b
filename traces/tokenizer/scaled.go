package tokenizer

import "github.com/cespare/xxhash/v2"

// Scaled stands in for a server's tokenizer the client does not have: it
// encodes with Base and expands every id into ⌊Ratio⌋ or ⌈Ratio⌉ ids,
// chosen by a hash of the id so the mean over distinct ids is Ratio.
// Equal prefixes stay equal prefixes, so prefix caches hit as they would
// on the server; only lengths follow the server's count, not its ids.
type Scaled struct {
	// Base is the tokenizer whose ids are expanded.
	Base Tokenizer
	// Ratio is the server's tokens per Base token (> 0).
	Ratio float64
}

// Name implements Tokenizer.
func (s Scaled) Name() string { return "scaled-" + s.Base.Name() }

// Encode implements Tokenizer.
func (s Scaled) Encode(text string) []int {
	ids := s.Base.Encode(text)
	whole := int(s.Ratio)
	frac := s.Ratio - float64(whole)
	out := make([]int, 0, int(float64(len(ids))*s.Ratio)+len(ids))
	for _, id := range ids {
		h := mix(uint64(id))
		k := whole
		if float64(h>>11)/(1<<53) < frac {
			k++
		}
		for j := range k {
			out = append(out, int(mix(uint64(id)*0x9e3779b97f4a7c15+uint64(j)+1)%VocabSize))
		}
	}
	return out
}

// mix is a 64-bit hash of x.
func mix(x uint64) uint64 {
	var b [8]byte
	for i := range b {
		b[i] = byte(x >> (8 * i))
	}
	return xxhash.Sum64(b[:])
}
