package policies

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// benchRequests returns n multi-turn, multi-tenant Requests in the manner
// of the Mooncake conversation trace: 512-token block ids, a system prompt
// shared by a group of conversations, then the conversation's own growing
// history.
func benchRequests(n int) []*traces.Request {
	out := make([]*traces.Request, n)
	for i := range out {
		conv, turn := i%128, i/128
		ids := []uint64{uint64(1 + conv%8)} // shared system prompt
		for k := 0; k <= turn%6; k++ {
			ids = append(ids, uint64(1000+conv*100+k))
		}
		out[i] = &traces.Request{ID: fmt.Sprint(i), User: fmt.Sprint("u", conv%16), Session: fmt.Sprint("c", conv),
			BlockIDs: ids, BlockSize: 512, InputTokens: len(ids)*512 - 100, OutputTokens: 200}
	}
	return out
}

// benchStates returns a few States of n Backends with varied loads.
func benchStates(n int, rng *rand.Rand) []State {
	out := make([]State, 8)
	for s := range out {
		loads := make([]int, n)
		for i := range loads {
			loads[i] = rng.IntN(6)
		}
		out[s] = State{Now: time.Duration(s) * time.Second, Backends: fleet(loads...)}
	}
	return out
}

// benchRouter builds r and routes the pool twice (with feedback) so that
// its cache view is warm before timing.
func benchRouter(b *testing.B, name string, p Params, reqs []*traces.Request, states []State) Router {
	r := mustRouter(b, name, p, 1)
	fb, _ := r.(Feedback)
	for w := 0; w < 2; w++ {
		for i, req := range reqs {
			ch := mustPick(b, r, req, states[i%len(states)])
			if fb != nil {
				fb.Done(states[i%len(states)].Now, req, Outcome{Backend: ch.Backend, PromptTokens: req.InputTokens, OutputTokens: req.OutputTokens})
			}
		}
	}
	return r
}

// runPicks times b.N picks over the pool and reports picks/s.
func runPicks(b *testing.B, r Router, reqs []*traces.Request, states []State) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Pick(reqs[i%len(reqs)], states[i%len(states)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "picks/s")
}

// BenchmarkPick measures every Router's decision at 8, 64 and 512
// Backends on Mooncake-like conversations (1-7 blocks of 512 tokens). A
// load-only Router's pick holds no prediction (target: under 1 µs at 64
// Backends); BenchmarkPickPredicted adds the shared HitModel.
func BenchmarkPick(b *testing.B) {
	reqs := benchRequests(1024)
	for _, name := range routerNames {
		for _, n := range []int{8, 64, 512} {
			b.Run(fmt.Sprintf("%s/backends=%d", name, n), func(b *testing.B) {
				states := benchStates(n, rand.New(rand.NewPCG(uint64(n), 3)))
				r := benchRouter(b, name, nil, reqs, states)
				runPicks(b, r, reqs, states)
			})
		}
	}
}

// longPrompts returns 256 prompts of 8,000 tokens: half shared by a group
// of 16, half unique. form "blocks" gives 512-token block ids (Mooncake),
// form "text" 32,000 characters of text.
func longPrompts(form string) []*traces.Request {
	out := make([]*traces.Request, 256)
	for p := range out {
		g := p % 16
		req := &traces.Request{ID: fmt.Sprint(p), InputTokens: 8000, OutputTokens: 100}
		if form == "blocks" {
			for k := 0; k < 16; k++ {
				id := uint64(g*100 + k)
				if k >= 8 {
					id = uint64(1_000_000 + p*100 + k)
				}
				req.BlockIDs = append(req.BlockIDs, id)
			}
			req.BlockSize = 512
		} else {
			req.Prompt = benchText(fmt.Sprint("group", g), 16000) + benchText(fmt.Sprint("prompt", p), 16000)
		}
		out[p] = req
	}
	return out
}

// benchText returns n characters of words derived from seed.
func benchText(seed string, n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "%s-%d ", seed, i)
	}
	return sb.String()[:n]
}

// BenchmarkPickPredicted measures the load-only Routers at 64 Backends as
// the replay runs them: the decision, then the shared HitModel's predicted
// hit for the chosen Backend.
func BenchmarkPickPredicted(b *testing.B) {
	reqs := benchRequests(1024)
	for _, name := range []string{"random", "round-robin", "least-request", "power-of-two", "least-kv-cache", "chwbl", "session-affinity", "vtc-basic"} {
		b.Run(fmt.Sprintf("%s/backends=64", name), func(b *testing.B) {
			states := benchStates(64, rand.New(rand.NewPCG(64, 3)))
			r := PredictHits(benchRouter(b, name, nil, reqs, states))
			runPicks(b, r, reqs, states)
		})
	}
}

// BenchmarkPickLongPrompt measures the prefix-aware Routers, and random
// behind the shared HitModel (whose cost is all prediction), on
// 8,000-token prompts at 64 Backends (the target is under 50 µs per pick).
func BenchmarkPickLongPrompt(b *testing.B) {
	for _, form := range []string{"blocks", "text"} {
		reqs := longPrompts(form)
		for _, name := range []string{"prefix-cache", "approx-prefix", "cache-aware", "chwbl", "random"} {
			b.Run(fmt.Sprintf("%s/%s/backends=64", name, form), func(b *testing.B) {
				states := benchStates(64, rand.New(rand.NewPCG(64, 3)))
				r := PredictHits(benchRouter(b, name, nil, reqs, states))
				runPicks(b, r, reqs, states)
			})
		}
	}
}
