package flags

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// MockSet is the value of --mock-set KEY=VALUE (repeatable): each KEY is
// a field of the engine profile (as in a profile YAML: max_num_seqs,
// beta, c_prefill, …), a fault setting of `tracebench mock` (error_rate,
// stall, …) or max_queue, and VALUE is parsed as that `tracebench mock`
// flag parses it. Hyphens and underscores are the same in keys.
type MockSet struct {
	// values are the settable values by flag name (hyphenated).
	values map[string]pflag.Value
	// set records the keys given, by flag name.
	set map[string]bool
	// given are the KEY=VALUE arguments, as typed.
	given []string
}

// NewMockSet returns a --mock-set value over the named values.
func NewMockSet(values map[string]pflag.Value) *MockSet {
	return &MockSet{values: values, set: map[string]bool{}}
}

// String returns the settings given, comma-separated.
func (s *MockSet) String() string { return strings.Join(s.given, ",") }

// Type names the value in help.
func (s *MockSet) Type() string { return "key=value" }

// Set parses one KEY=VALUE setting.
func (s *MockSet) Set(arg string) error {
	k, v, ok := strings.Cut(arg, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, e.g. max_num_seqs=64")
	}
	name := strings.ReplaceAll(strings.TrimSpace(k), "_", "-")
	val, ok := s.values[name]
	if !ok {
		return fmt.Errorf("unknown key %q; %s", k, s.Suggest(name))
	}
	if err := val.Set(strings.TrimSpace(v)); err != nil {
		return fmt.Errorf("%s: %v", KeyName(name), err)
	}
	s.set[name] = true
	s.given = append(s.given, arg)
	return nil
}

// Changed reports whether key (a flag name) was given.
func (s *MockSet) Changed(name string) bool { return s.set[name] }

// Keys returns every key, in profile spelling, sorted.
func (s *MockSet) Keys() []string {
	ks := make([]string, 0, len(s.values))
	for n := range s.values {
		ks = append(ks, KeyName(n))
	}
	sort.Strings(ks)
	return ks
}

// Suggest names the keys closest to name, or lists them all when none is
// close.
func (s *MockSet) Suggest(name string) string {
	type scored struct {
		key  string
		dist int
	}
	var close []scored
	for n := range s.values {
		d := editDistance(name, n)
		if d <= max(2, len(name)/3) || strings.Contains(n, name) || strings.Contains(name, n) {
			close = append(close, scored{KeyName(n), d})
		}
	}
	if len(close) == 0 {
		return "keys: " + strings.Join(s.Keys(), ", ")
	}
	slices.SortFunc(close, func(a, b scored) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.key, b.key)
	})
	names := make([]string, 0, 3)
	for _, c := range close[:min(3, len(close))] {
		names = append(names, c.key)
	}
	return "did you mean " + strings.Join(names, ", ") + "?"
}

// KeyName is a flag name in profile spelling (underscores).
func KeyName(flag string) string { return strings.ReplaceAll(flag, "-", "_") }

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
