package metrics

import (
	"math"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/results"
)

// Event sources and value names the Accumulator reads.
const (
	// SourceMultiBin events carry "bin<k>_b_target" (and b_mem, b_sla,
	// lo, hi) per bin of the multi-bin Queue.
	SourceMultiBin = "multi-bin"
	// SourceVTC and SourceLCF events carry "counter:<user>" values of the
	// vtc and lcf Queues (weighted tokens); so do the VTC variants, whose
	// sources start with "vtc-" (vtc-oracle, vtc-predict, vtc-max-fair).
	SourceVTC = "vtc"
	SourceLCF = "lcf"
	// SourceScrape prefixes "scrape:<backend index>" events: the gauges
	// and counters scraped from that Backend's /metrics.
	SourceScrape = "scrape:"
)

// Scraped value names, with the vLLM metric each one comes from. A name
// is also accepted with its "vllm:" prefix.
var (
	scrapeHits    = []string{"prefix_cache_hits_total", "prefix_cache_hits", "prefix_hits"}
	scrapeQueries = []string{"prefix_cache_queries_total", "prefix_cache_queries", "prefix_queries"}
	scrapeKV      = []string{"kv_cache_usage_perc", "kv_usage", "gpu_cache_usage_perc"}
	scrapeGen     = []string{"generation_tokens_total"}
)

// AddEvent folds one Event in: multi-bin b_target per bin and VTC
// counters per user for the plots, and scraped prefix-cache counters and
// KV usage per Backend. Events
// before the warm-up cut are ignored; unknown sources are ignored.
func (a *Accumulator) AddEvent(e *results.Event) {
	if e == nil || a.addFleet(e) || e.At < a.o.Warmup {
		return
	}
	switch {
	case e.Source == SourceMultiBin:
		for k, v := range e.Values {
			bin, ok := strings.CutSuffix(k, "_b_target")
			if !ok || math.IsNaN(v) {
				continue
			}
			s, ok := a.bins[bin]
			if !ok {
				s = newSeries(a.o.Buckets, true)
				a.bins[bin] = s
			}
			s.add(e.At, v)
		}
	case e.Source == SourceVTC || e.Source == SourceLCF || strings.HasPrefix(e.Source, SourceVTC+"-"):
		for k, v := range e.Values {
			if user, ok := strings.CutPrefix(k, "counter:"); ok && !math.IsNaN(v) {
				a.user(user).counter(a.o.Buckets).add(e.At, v)
			}
		}
	case strings.HasPrefix(e.Source, SourceScrape):
		i, err := strconv.Atoi(strings.TrimPrefix(e.Source, SourceScrape))
		if err != nil || i < 0 {
			return
		}
		a.backend(i).scrape(e.Values)
	}
}

// scrape folds one scrape of the Backend's /metrics in.
func (b *backendAcc) scrape(v map[string]float64) {
	if kv, ok := lookup(v, scrapeKV); ok {
		if kv > 1 { // a percentage, not a fraction
			kv /= 100
		}
		b.kvMax, b.kvSeen = max(b.kvMax, kv), true
	}
	if g, ok := lookup(v, scrapeGen); ok {
		if !b.genSeen {
			b.genSeen, b.firstGen = true, g
		}
		b.lastGen = g
	}
	hits, okH := lookup(v, scrapeHits)
	queries, okQ := lookup(v, scrapeQueries)
	if !okH || !okQ {
		return
	}
	if !b.scraped {
		b.scraped, b.firstHits, b.firstQueries = true, hits, queries
	}
	b.lastHits, b.lastQueries = hits, queries
}

// lookup returns the first of names present in v (bare or with the
// "vllm:" prefix).
func lookup(v map[string]float64, names []string) (float64, bool) {
	for _, n := range names {
		if x, ok := v[n]; ok {
			return x, true
		}
		if x, ok := v["vllm:"+n]; ok {
			return x, true
		}
	}
	return 0, false
}
