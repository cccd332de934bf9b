//go:build !race

package cli

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// startB7099 starts llama-server b7099 as released (JSON-wrapped /metrics)
// with slot erase allowed and no host-memory prompt cache, so erasing the
// slots empties the cache, and returns its URL.
func startB7099(t *testing.T) string {
	t.Helper()
	u, _ := startLlamaServer(t, "llama-server", "-c", "8192", "--slot-save-path", t.TempDir(), "--cache-ram", "0")
	return u
}

// computedPrompt is the server's llamacpp:prompt_tokens_total: the prompt
// tokens it computed (cache hits excluded).
func computedPrompt(t *testing.T, u string) float64 {
	t.Helper()
	d, _ := dialect.Lookup(dialect.LlamaCpp)
	m, err := replay.Scrape(context.Background(), nil, u, d)
	if err != nil || m.Has&dialect.FieldPromptTokens == 0 {
		t.Fatalf("scrape %s: %+v, %v", u, m, err)
	}
	return m.PromptTokens
}

// TestRealEngine replays against two real llama-servers (b7099, whose
// /metrics is JSON-wrapped): the dialect is detected, the server hit
// rate read from timings.cache_n is within 5 points of the one the
// servers' own computed-token counters give, the scraped figures are not
// zero, and a bench flushes the caches before each policy.
func TestRealEngine(t *testing.T) {
	targets := []string{startB7099(t), startB7099(t)}
	workload := []string{"--workload", "shared-prefix", "-p", "groups=2", "-p", "prompts_per_group=8",
		"-p", "system_len=256", "-p", "question_len=32", "-p", "output_len=16", "--rate", "4"}
	withTargets := func(args ...string) []string {
		for _, u := range targets {
			args = append(args, "--target", u)
		}
		return append(args, workload...)
	}
	before := computedPrompt(t, targets[0]) + computedPrompt(t, targets[1])
	out := filepath.Join(t.TempDir(), "r.jsonl")
	if code, _, stderr := runCLI(t, withTargets("replay", "--policy", "prefix-cache", "--scrape",
		"--scrape-interval", "200ms", "--out", out)...); code != ExitOK {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	computed := computedPrompt(t, targets[0]) + computedPrompt(t, targets[1]) - before
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 16 || sum.Header.Config.Dialect != dialect.LlamaCpp {
		t.Fatalf("%d of 16 ok, dialect %v", sum.OK, sum.Header.Config.Dialect)
	}
	prompt := sum.Throughput.InputTokens * sum.Window.Seconds
	serverSide := 1 - computed/prompt
	t.Logf("hit rate from responses %.3f, from the servers' counters %.3f (%.0f of %.0f prompt tokens computed); predicted %.3f",
		sum.HitRate.Server, serverSide, computed, prompt, sum.HitRate.Predicted)
	if !(sum.HitRate.Server > 0) || math.Abs(sum.HitRate.Server-serverSide) > 0.05 {
		t.Errorf("server hit rate %.3f, the servers' counters give %.3f: want within 5 points", sum.HitRate.Server, serverSide)
	}
	for _, b := range sum.Backends {
		if b.Requests > 0 && !(b.ScrapedOutputShare > 0.5) {
			t.Errorf("%s: scraped generated tokens %.2f of the client's: want the scrape to see them", b.URL, b.ScrapedOutputShare)
		}
	}
	if sum.Stop.Extra[results.ExtraScrapes] == 0 {
		t.Error("no scrapes recorded")
	}
	chat := filepath.Join(t.TempDir(), "chat.jsonl")
	if code, _, stderr := runCLI(t, withTargets("replay", "--policy", "prefix-cache", "--api", "chat", "--out", chat)...); code != ExitOK {
		t.Fatalf("chat replay: exit %d\n%s", code, stderr)
	}
	cs, err := metrics.Summarize(chat, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chat: %.3f server prompt tokens per trace token", cs.PromptTokenRatio)
	// The chat template's tokens (45 a request for a system and a user
	// message on this model) come off the contents, so the server counts
	// the trace's tokens; synthetic words sent as text would come to 2.5.
	if cs.OK != 16 || !(math.Abs(cs.PromptTokenRatio-1) <= 0.05) {
		t.Errorf("chat: %d of 16 ok, %.3f server tokens per trace token: want token-exact prompts, within 5 %% of 1",
			cs.OK, cs.PromptTokenRatio)
	}
	dir := t.TempDir()
	if code, _, stderr := runCLI(t, withTargets("bench", "--policies", "round-robin,prefix-cache", "--out", dir)...); code != ExitOK {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	for _, p := range []string{"round-robin", "prefix-cache"} {
		s, err := metrics.Summarize(bench.ResultsPath(dir, p), metrics.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if c := s.Header.Config.BenchCaches; !strings.HasPrefix(c, "salted") || s.OK != 16 {
			t.Errorf("%s: bench_caches %q, %d of 16 ok; want salted (the flush leaves the host cache, so runs are salted too) and all served", p, c, s.OK)
		}
	}
}
