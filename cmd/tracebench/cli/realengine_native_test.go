//go:build !race

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealEngineNativeAPI replays against llama.cpp's CPU llama-server
// (4 slots) with --api native, streamed and not: every Result names the
// slot that served it (0 to 3) and carries the server's timings, whose
// counts match the Result's; then requests pinned to slots report
// those slots.
func TestRealEngineNativeAPI(t *testing.T) {
	url, _ := startLlamaServer(t, "llama-server")
	for _, extra := range [][]string{nil, {"--no-stream"}} {
		t.Run(fmt.Sprint("stream=", extra == nil), func(t *testing.T) {
			res := replayResults(t, append([]string{"--target", url, "--dialect", "llamacpp", "--api", "native",
				"--workload", "shared-prefix", "-p", "groups=2", "-p", "prompts_per_group=6", "-p", "system_len=256",
				"-p", "question_len=32", "-p", "output_len=16", "--rate", "8"}, extra...)...)
			slots := map[int]int{}
			for _, r := range res {
				if !r.OK() || r.Slot == nil || *r.Slot < 0 || *r.Slot > 3 || r.Server == nil ||
					r.Server.PredictedN != r.CompletionTokens || r.Server.PromptN+r.Server.CacheN != r.PromptTokens {
					t.Fatalf("result %s: ok %v (%s), slot %v, server %+v, prompt %d, completion %d: "+
						"want a slot in 0..3 and timings matching the counts", r.ID, r.OK(), r.Err, r.Slot, r.Server,
						r.PromptTokens, r.CompletionTokens)
				}
				slots[*r.Slot]++
			}
			t.Logf("%d results; requests per slot %v; first: prompt %d (cached %d), output %d, server %+v",
				len(res), slots, res[0].PromptTokens, res[0].CachedTokens, res[0].CompletionTokens, *res[0].Server)
			if len(res) != 12 {
				t.Fatalf("%d results, want 12", len(res))
			}
		})
	}
	trace := filepath.Join(t.TempDir(), "pinned.jsonl")
	var b strings.Builder
	want := map[string]int{}
	for i, k := range []int{3, 1, 2, 0} {
		id := fmt.Sprint("p", i)
		want[id] = k
		fmt.Fprintf(&b, `{"id":%q,"arrival_ns":%d,"prompt":"pinned request %d","input_tokens":4,"output_tokens":3,"slot":%d}`+"\n",
			id, i*50_000_000, i, k)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	pinned := replayResults(t, "--target", url, "--dialect", "llamacpp", "--api", "native", "--trace", trace)
	if len(pinned) != len(want) {
		t.Fatalf("%d pinned results, want %d", len(pinned), len(want))
	}
	for _, r := range pinned {
		if !r.OK() || r.Slot == nil || *r.Slot != want[r.ID] {
			t.Errorf("pinned result %s: ok %v (%s), slot %v: want slot %d", r.ID, r.OK(), r.Err, r.Slot, want[r.ID])
			continue
		}
		t.Logf("pinned %s: slot %d", r.ID, *r.Slot)
	}
}
