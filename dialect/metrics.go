package dialect

import (
	"maps"
	"slices"
	"strings"
)

// Field names one figure read from /metrics.
type Field uint16

// The figures a scrape can carry.
const (
	FieldRunning Field = 1 << iota
	FieldWaiting
	FieldKVUsage
	FieldPrefixQueries
	FieldPrefixHits
	FieldPromptTokens
	FieldGenerationTokens
	FieldPreemptions
)

// Metrics maps a server's Prometheus names to figures. Each list is
// newest first: the first name a server exposes wins, so a server that
// exports a name and its deprecated alias is not counted twice.
type Metrics struct {
	// Prefix is the namespace of the server's own metrics ("vllm:").
	Prefix string
	// Running and Waiting are gauges of requests being computed and
	// queued.
	Running, Waiting []string
	// KVUsage is a gauge of the fraction of KV-cache capacity in use
	// (0 to 1); with several label sets (data-parallel engines) the
	// figure is their mean.
	KVUsage []string
	// PrefixQueries and PrefixHits are counters of prompt tokens looked
	// up in, and found in, the prefix cache.
	PrefixQueries, PrefixHits []string
	// PromptTokens counts prompt tokens. When PromptComputedOnly, the
	// server counts only the tokens it computed (cache hits excluded),
	// so the counter is not a query count.
	PromptTokens       []string
	PromptComputedOnly bool
	// GenerationTokens counts generated tokens; Preemptions counts
	// requests preempted or retracted.
	GenerationTokens, Preemptions []string
	// CacheConfig is an info gauge whose num_gpu_blocks label is the KV
	// capacity in blocks ("" when none).
	CacheConfig string
}

// Figures are one scrape's values in tracebench's terms. Counts are
// summed over label sets (models, data-parallel engines); Has says which
// figures the page carried.
type Figures struct {
	Running, Waiting, KVUsage                   float64
	PrefixQueries, PrefixHits                   float64
	PromptTokens, GenerationTokens, Preemptions float64
	Has                                         Field
}

// Sampler returns the sum of a metric's samples over its label sets and
// how many there were (0: the page does not have the name).
type Sampler func(name string) (sum float64, n int)

// Read maps one scrape through the dialect's names.
func (m *Metrics) Read(s Sampler) Figures {
	var f Figures
	read := func(names []string, dst *float64, fl Field, mean bool) {
		for _, n := range names {
			if v, k := s(n); k > 0 {
				if mean {
					v /= float64(k)
				}
				*dst, f.Has = v, f.Has|fl
				return
			}
		}
	}
	read(m.Running, &f.Running, FieldRunning, false)
	read(m.Waiting, &f.Waiting, FieldWaiting, false)
	read(m.KVUsage, &f.KVUsage, FieldKVUsage, true)
	read(m.PrefixQueries, &f.PrefixQueries, FieldPrefixQueries, false)
	read(m.PrefixHits, &f.PrefixHits, FieldPrefixHits, false)
	read(m.PromptTokens, &f.PromptTokens, FieldPromptTokens, false)
	read(m.GenerationTokens, &f.GenerationTokens, FieldGenerationTokens, false)
	read(m.Preemptions, &f.Preemptions, FieldPreemptions, false)
	return f
}

// Names returns every metric name the dialect reads.
func (m *Metrics) Names() []string {
	var all []string
	for _, l := range [][]string{m.Running, m.Waiting, m.KVUsage, m.PrefixQueries, m.PrefixHits,
		m.PromptTokens, m.GenerationTokens, m.Preemptions} {
		all = append(all, l...)
	}
	if m.CacheConfig != "" {
		all = append(all, m.CacheConfig)
	}
	return all
}

// Prefixes returns the distinct namespaces ("vllm:", "llamacpp:") of
// names, sorted, for a message saying what a page had instead.
func Prefixes(names []string) []string {
	seen := map[string]bool{}
	for _, n := range names {
		if p, _, ok := strings.Cut(n, ":"); ok {
			seen[p+":"] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// ByPrefix returns the dialect whose metric namespace prefixes most of
// names (nil when none does).
func ByPrefix(names []string) *Dialect {
	var best *Dialect
	bestN := 0
	for _, d := range []*Dialect{&vllm, &sglang, &llamacpp} {
		n := 0
		for _, name := range names {
			if strings.HasPrefix(name, d.Metrics.Prefix) {
				n++
			}
		}
		if n > bestN {
			best, bestN = d, n
		}
	}
	return best
}
