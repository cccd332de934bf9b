package tokenizer

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestScaled checks the mean expansion and that shared prefixes stay
// shared.
func TestScaled(t *testing.T) {
	var words []string
	for i := range 5000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	text := strings.Join(words, " ")
	for _, r := range []float64{1, 1.5, 2.49, 3} {
		s := Scaled{Base: Whitespace{}, Ratio: r}
		got := float64(len(s.Encode(text))) / float64(len(words))
		if math.Abs(got-r)/r > 0.03 {
			t.Errorf("ratio %g: mean expansion %.3f", r, got)
		}
		a, b := s.Encode("shared prefix here then A"), s.Encode("shared prefix here then B")
		n := len(s.Encode("shared prefix here then"))
		if !slices.Equal(a[:n], b[:n]) || slices.Equal(a, b) {
			t.Errorf("ratio %g: prefix not kept or suffix not distinct: %v %v", r, a, b)
		}
	}
}
