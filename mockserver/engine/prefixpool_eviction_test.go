package engine

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// evictionPoolBlocks is the KV capacity of the per-policy experiment: the
// pool's 10 prompts need 60 full blocks, so they do not all fit.
const evictionPoolBlocks = 48

// TestPrefixPoolEvictionPolicies reruns the prefix-pool experiment under
// every eviction policy on a cache too small for the pool: the token hit
// rate with requests every 20 ms, and throughput (requests per virtual
// second, first arrival to last token) with all 1,000 requests arriving
// at once. Frequency-first eviction keeps the pool's blocks against the
// one-off random prompts, so from p = 0.3 on it must hit more than
// either recency policy.
func TestPrefixPoolEvictionPolicies(t *testing.T) {
	var buf bytes.Buffer
	pols := EvictionPolicies()
	fmt.Fprintf(&buf, "| p |")
	for _, pol := range pols {
		fmt.Fprintf(&buf, " %s hit | %s evictions | %s req/s |", pol, pol, pol)
	}
	fmt.Fprintf(&buf, "\n|---|%s\n", bytes.Repeat([]byte("---|---|---|"), len(pols)))
	for i := 1; i <= 10; i++ {
		p := float64(i) / 10
		fmt.Fprintf(&buf, "| %.1f |", p)
		hit := map[string]float64{}
		for _, pol := range pols {
			paced := runPrefixPoolWith(t, p, evictionPoolBlocks, pol, poolGap)
			burst := runPrefixPoolWith(t, p, evictionPoolBlocks, pol, 0)
			hit[pol] = hitRate(paced.stats)
			if hit[pol] < 0 || hit[pol] > 1 {
				t.Fatalf("p=%.1f %s: hit rate %g outside [0, 1]", p, pol, hit[pol])
			}
			fmt.Fprintf(&buf, " %.1f %% | %d | %.0f |", 100*hit[pol], paced.stats.Evictions,
				poolRequests/burst.makespan.Seconds())
		}
		buf.WriteString("\n")
		if p >= 0.3 && (hit[EvictLFU] <= hit[EvictLRU] || hit[EvictLFU] <= hit[EvictLRULongest]) {
			t.Errorf("p=%.1f: lfu hit rate %.3f not above lru %.3f and lru-longest %.3f",
				p, hit[EvictLFU], hit[EvictLRU], hit[EvictLRULongest])
		}
	}
	golden(t, "prefix_pool_eviction.golden", buf.Bytes())
}

// BenchmarkEvictor measures one release and one eviction of a cached
// block with n cached blocks waiting, per policy: the cost of the
// evictor's push and pop (O(1) for lru, O(log n) for the heap policies).
func BenchmarkEvictor(b *testing.B) {
	for _, pol := range EvictionPolicies() {
		for _, n := range []int{1 << 10, 1 << 16} {
			b.Run(fmt.Sprintf("%s/cached=%d", pol, n), func(b *testing.B) {
				p := newBlockPool(n, pol)
				for i := range n {
					id := p.allocate()
					p.register(id, uint64(i+1), 1+i%64)
					if p.uses != nil {
						p.uses[id] += int32(i % 7)
					}
					p.release(id, time.Duration(i/8))
				}
				next := uint64(n + 1)
				now := time.Duration(n)
				for b.Loop() {
					id := p.allocate() // evicts
					p.register(id, next, 1+int(next%64))
					p.release(id, now)
					next++
					now++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/evict+release")
			})
		}
	}
}
