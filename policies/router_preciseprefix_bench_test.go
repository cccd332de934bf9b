package policies

import (
	"fmt"
	"testing"

	"github.com/tracebench/tracebench/kvevents"
	"github.com/tracebench/tracebench/traces"
)

// BenchmarkPrecisePrefixPick is one whole pick at 8 and 64 backends (the
// index's limit; there is no 512 row): hashing a Mooncake-like prompt of
// 16 blocks of 512 tokens (8,192 tokens, 512 router blocks), the index
// lookup and the scoring, with every backend holding 16,384 blocks and 8
// of them the prompt's first half.
func BenchmarkPrecisePrefixPick(b *testing.B) {
	for _, n := range []int{8, 64} {
		b.Run(fmt.Sprintf("backends=%d", n), func(b *testing.B) { benchPrecisePick(b, n) })
	}
}

func benchPrecisePick(b *testing.B, n int) {
	r := mustRouter(b, "precise-prefix", nil, 1)
	idx, err := r.(KVEventRouter).BindKVEvents(n)
	if err != nil {
		b.Fatal(err)
	}
	h := uint64(1)
	for be := range n {
		for range 256 {
			hs := make([]uint64, 64)
			for j := range hs {
				h = h*6364136223846793005 + 1442695040888963407
				hs[j] = h
			}
			idx.Apply(be, kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{
				{Kind: kvevents.Stored, Hashes: hs, BlockSize: 16}}}})
		}
	}
	ids := make([]uint64, 16)
	for i := range ids {
		ids[i] = uint64(i)
	}
	req := &traces.Request{ID: "r", BlockIDs: ids, BlockSize: 512, InputTokens: 8192}
	half := kvevents.ChainHashes(nil, traces.PromptTokens(req), 16, 0)[:256]
	for be := range 8 {
		idx.Apply(be, kvevents.Decoded{Batch: kvevents.Batch{Events: []kvevents.Event{
			{Kind: kvevents.Stored, Hashes: half, BlockSize: 16}}}})
	}
	bs := make([]Backend, n)
	for i := range bs {
		bs[i] = Backend{Index: i, ID: fmt.Sprint(i), InFlight: i % 5, InFlightTokens: 1000 * (i % 7)}
	}
	st := State{Backends: bs}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if ch := mustPick(b, r, req, st); ch.PredictedHitTokens != 256*16 {
			b.Fatalf("pick %+v", ch)
		}
	}
}
