package textfmt

import (
	"cmp"
	"slices"
	"strings"
)

// NaturalKeys returns m's keys in natural order ("bin2" before "bin10").
func NaturalKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, NaturalCompare)
	return keys
}

// NaturalCompare orders strings with equal prefixes by their trailing
// number, then lexically.
func NaturalCompare(x, y string) int {
	px, nx := splitNumber(x)
	py, ny := splitNumber(y)
	if px == py && nx >= 0 && ny >= 0 {
		return cmp.Compare(nx, ny)
	}
	return strings.Compare(x, y)
}

func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return s, -1
	}
	n := 0
	for _, c := range s[i:] {
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}
