//go:build !race

package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/results"
)

// TestRealEngineBenchColdStart benches two policies on two llama-servers
// started as users start them: no --slot-save-path (the slot erase is
// refused) and the host prompt cache of --cache-ram on. Both runs see the
// same shared prefixes, so without isolation the second run's first
// request on each server would find the first run's prefix in the slot
// or the host cache. The bench salts every run instead: the first
// request of the second run on each server has no cached token, and
// the prefixes shared within a run still hit.
func TestRealEngineBenchColdStart(t *testing.T) {
	u1, _ := startLlamaServer(t, "llama-server", "-c", "8192")
	u2, _ := startLlamaServer(t, "llama-server", "-c", "8192")
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "bench", "--policies", "round-robin,prefix-cache", "--target", u1, "--target", u2,
		"--workload", "shared-prefix", "-p", "groups=2", "-p", "prompts_per_group=8", "-p", "system_len=256",
		"-p", "question_len=32", "-p", "output_len=8", "--rate", "4", "--seed", "1", "--out", dir)
	if code != ExitOK {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "tokens of its own salt") {
		t.Errorf("stderr does not say the runs are salted:\n%s", stderr)
	}
	for _, p := range []string{"round-robin", "prefix-cache"} {
		h, res := readResults(t, bench.ResultsPath(dir, p))
		caches, order := h.Config.BenchCaches, h.Config.BenchOrder
		if !strings.HasPrefix(caches, "salted") {
			t.Errorf("%s: bench_caches %q, want salted", p, caches)
		}
		var cached, prompt int
		for _, r := range res {
			cached, prompt = cached+r.CachedTokens, prompt+r.PromptTokens
		}
		t.Logf("%s ran %s: %d of %d prompt tokens cached", p, order, cached, prompt)
		if prompt == 0 || float64(cached) < 0.3*float64(prompt) {
			t.Errorf("%s: %d of %d prompt tokens cached: the prefixes shared within the run should hit", p, cached, prompt)
		}
		if order != "2 of 2" {
			continue
		}
		seen := map[int]bool{}
		for _, r := range res {
			if !seen[r.Backend] {
				seen[r.Backend] = true
				if r.CachedTokens != 0 {
					t.Errorf("%s (second run): first request on backend %d found %d cached tokens, want a cold cache",
						p, r.Backend, r.CachedTokens)
				}
			}
		}
	}
}

// readResults returns a results file's header and its Results in the
// order they were sent.
func readResults(t *testing.T, path string) (results.Header, []*results.Result) {
	t.Helper()
	rd, res, _ := testfixtures.ReadResults(t, path)
	slices.SortFunc(res, func(a, b *results.Result) int { return int(a.Sent - b.Sent) })
	return rd.Header, res
}
