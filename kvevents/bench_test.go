package kvevents

import (
	"runtime"
	"testing"
)

// fillIndex stores perBackend distinct blocks on each of n backends, in
// chains of 64 blocks (one BlockStored event each).
func fillIndex(b *testing.B, n, perBackend int) *Index {
	b.Helper()
	x, err := NewIndex(n, 16, 0)
	if err != nil {
		b.Fatal(err)
	}
	h := uint64(1)
	for be := range n {
		for i := 0; i < perBackend; i += 64 {
			hs := make([]uint64, 64)
			for j := range hs {
				h = h*6364136223846793005 + 1442695040888963407
				hs[j] = h
			}
			x.Apply(be, Decoded{Batch: Batch{Events: []Event{{Kind: Stored, Hashes: hs, BlockSize: 16}}}})
		}
	}
	return x
}

// BenchmarkIndexMemory reports the heap bytes per indexed block with 64
// backends holding 16,384 distinct blocks each (1M entries). At the
// limit of 64 backends × 1,048,576 blocks the index holds at most 2²⁶
// entries, so its memory is bounded by that many times this figure.
func BenchmarkIndexMemory(b *testing.B) {
	for range b.N {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		x := fillIndex(b, MaxBackends, 16384)
		runtime.GC()
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/float64(x.Len()), "bytes/block")
		runtime.KeepAlive(x)
	}
}

// BenchmarkIndexMatch is the lookup of one pick: a 2,048-block prompt
// (32,768 tokens) against a 1M-entry index of 64 backends, where 16
// backends hold its first 1,024 blocks.
func BenchmarkIndexMatch(b *testing.B) {
	x := fillIndex(b, MaxBackends, 16384)
	prompt := make([]uint64, 2048)
	for i := range prompt {
		prompt[i] = uint64(i)*0x9e3779b97f4a7c15 + 7
	}
	for be := range 16 {
		x.Apply(be, Decoded{Batch: Batch{Events: []Event{{Kind: Stored, Hashes: prompt[:1024], BlockSize: 16}}}})
	}
	var dst []int
	b.ResetTimer()
	for range b.N {
		dst = x.Match(prompt, dst)
	}
	if dst[0] != 1024 {
		b.Fatalf("match %d, want 1024", dst[0])
	}
}

// BenchmarkChainHashes hashes a 32,768-token prompt in 16-token blocks,
// the other half of a pick's cost.
func BenchmarkChainHashes(b *testing.B) {
	toks := make([]int, 32768)
	for i := range toks {
		toks[i] = i
	}
	var dst []uint64
	b.SetBytes(int64(4 * len(toks)))
	for range b.N {
		dst = ChainHashes(dst[:0], toks, 16, 0)
	}
}

// BenchmarkApplyStored is the cost of absorbing events: one batch of one
// BlockStored of 32 blocks and one BlockRemoved of 32 blocks.
func BenchmarkApplyStored(b *testing.B) {
	x, _ := NewIndex(4, 16, 0)
	hs := make([]uint64, 32)
	for i := range hs {
		hs[i] = uint64(i) + 1
	}
	d := Decoded{Batch: Batch{Events: []Event{{Kind: Stored, Hashes: hs, BlockSize: 16}, {Kind: Removed, Hashes: hs}}}}
	b.ReportAllocs()
	for range b.N {
		x.Apply(1, d)
	}
	b.ReportMetric(float64(b.N*2)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecode decodes a 64-event batch as the mock publishes it.
func BenchmarkDecode(b *testing.B) {
	evs := make([]Event, 64)
	for i := range evs {
		evs[i] = Event{Kind: Stored, Hashes: []uint64{uint64(i), uint64(i) << 32}, Tokens: make([]int, 32), BlockSize: 16,
			Medium: MediumGPU}
	}
	p, err := Encode(Batch{TS: 1, Events: evs})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for range b.N {
		if _, err := Decode(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(evs))/b.Elapsed().Seconds(), "events/s")
}
