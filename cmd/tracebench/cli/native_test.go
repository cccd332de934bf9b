package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// slotsProfile writes a llama.cpp-family mock profile: 4 slots of the
// per-slot cache (the mock answers as llama.cpp).
func slotsProfile(t *testing.T) string {
	t.Helper()
	return writeProfile(t, t.TempDir(), "name: slots\nengine:\n  cache: per-slot\n  max_num_seqs: 4\n")
}

// replayResults runs replay with args (--out added) and returns its
// Results.
func replayResults(t *testing.T, args ...string) []*results.Result {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, stderr := runCLI(t, append(append([]string{"replay"}, args...), "--out", out)...)
	if code != ExitOK {
		t.Fatalf("replay exit %d; stderr:\n%s", code, stderr)
	}
	_, res, _ := testfixtures.ReadResults(t, out)
	return res
}

// TestReplayNativeAPIOnMock replays against the mock answering as
// llama.cpp with --api native, streamed and not: every Result names the
// slot that served it (0 to 3) and carries the server's timings, whose
// counts match the Result's.
func TestReplayNativeAPIOnMock(t *testing.T) {
	prof := slotsProfile(t)
	for _, extra := range [][]string{nil, {"--no-stream"}} {
		t.Run(fmt.Sprint("stream=", extra == nil), func(t *testing.T) {
			res := replayResults(t, append([]string{"--mock", "1", "--mock-profile", prof, "--dialect", "llamacpp", "--api", "native",
				"--workload", "shared-prefix", "--workload-param", "requests=24", "--workload-param", "output_len=8", "--rate", "40"}, extra...)...)
			if len(res) != 24 {
				t.Fatalf("%d results, want 24", len(res))
			}
			for _, r := range res {
				if !r.OK() || r.Slot == nil || *r.Slot < 0 || *r.Slot > 3 || r.Server == nil ||
					r.Server.PredictedN != r.CompletionTokens || r.Server.PromptN+r.Server.CacheN != r.PromptTokens ||
					r.CompletionTokens == 0 || r.FirstToken <= 0 {
					t.Fatalf("result %s: ok %v (%s), slot %v, server %+v, prompt %d, completion %d, first token %v: "+
						"want a slot in 0..3 and timings matching the counts", r.ID, r.OK(), r.Err, r.Slot, r.Server,
						r.PromptTokens, r.CompletionTokens, r.FirstToken)
				}
			}
		})
	}
}

// TestReplayNativePinnedSlot: a trace Request pinned to slot k reports
// slot k.
func TestReplayNativePinnedSlot(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "pinned.jsonl")
	var b strings.Builder
	want := map[string]int{}
	for i, k := range []int{3, 1, 2, 0, 3, 2} {
		id := fmt.Sprint("p", i)
		want[id] = k
		fmt.Fprintf(&b, `{"id":%q,"arrival_ns":%d,"prompt":"pinned request %d","input_tokens":4,"output_tokens":3,"slot":%d}`+"\n",
			id, i*10_000_000, i, k)
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res := replayResults(t, "--mock", "1", "--mock-profile", slotsProfile(t), "--dialect", "llamacpp", "--api", "native", "--trace", trace)
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for _, r := range res {
		if !r.OK() || r.Slot == nil || *r.Slot != want[r.ID] {
			t.Errorf("result %s: ok %v (%s), slot %v: want slot %d", r.ID, r.OK(), r.Err, r.Slot, want[r.ID])
		}
	}
}

// TestNativeAPINeedsLlamaCpp: --api native with another dialect is a
// one-line usage error naming --api.
func TestNativeAPINeedsLlamaCpp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, stderr := runCLI(t, "replay", "--target", "http://127.0.0.1:9", "--dialect", "vllm", "--api", "native", "--out", out)
	want := `--api "native": vllm servers have no native completion API`
	if code == ExitOK || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, stderr %q: want a failure naming %q", code, stderr, want)
	}
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n > 0 {
		t.Errorf("stderr has %d lines, want one:\n%s", n+1, stderr)
	}
}
