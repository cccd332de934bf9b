package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// helperArgsEnv carries the command line of a re-executed test binary
// (TestShardHelperProcess), as a JSON array.
const helperArgsEnv = "TRACEBENCH_TEST_HELPER_ARGS"

// TestShardHelperProcess is not a test: a test re-executes the test
// binary with -test.run=TestShardHelperProcess and helperArgsEnv set, and
// it runs that tracebench command line as a separate process would.
func TestShardHelperProcess(t *testing.T) {
	env := os.Getenv(helperArgsEnv)
	if env == "" {
		t.Skip("helper process for TestShardedRunMatchesUnsharded")
	}
	var args []string
	if err := json.Unmarshal([]byte(env), &args); err != nil {
		t.Fatalf("%s: %v", helperArgsEnv, err)
	}
	os.Exit(Run(args, os.Stdout, os.Stderr))
}

// shardedRequest is what must not change when a Run is sharded.
type shardedRequest struct {
	Intended                 time.Duration
	PromptTokens, Completion int
	Cached                   int
	User, Session, OK        string
}

// TestShardedRunMatchesUnsharded runs a simulated workload as four shards
// (--shard i/4) in four processes, merges their results files with
// `tracebench merge`, and compares the merged file with one unsharded
// run: the same requests with the same arrival times (also under
// --max-requests and --rate, which select and time the whole Run before
// it is split), the same prompt and completion tokens, and so the same
// totals. Cached tokens depend on each shard's own router and cache
// state; with session affinity, sessions that share no prefix and a
// cache that never evicts, they must match too (the first case). With
// prefix-aware routing over shared system prompts they may differ (each
// shard warms its own caches), and only the rest is compared.
func TestShardedRunMatchesUnsharded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		args        []string
		exactCached bool
	}{
		{"multi-turn/session-affinity", []string{"--workload", "multi-turn", "-p", "requests=160", "-p", "think=30s",
			"--max-requests", "120", "--policy", "session-affinity"}, true},
		{"mixed/prefix-cache/rate", []string{"--workload", "mixed", "-p", "requests=300", "--rate", "20",
			"--max-requests", "200", "--policy", "prefix-cache"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// Open-loop: a closed-loop turn's time depends on when its
			// answer came, which a shard's own fleet changes.
			base := slices.Concat([]string{"replay", "--sim", "2", "--sessions", "open"}, tc.args)
			whole := filepath.Join(dir, "whole.jsonl")
			var stdout, stderr bytes.Buffer
			if code := Run(slices.Concat(base, []string{"--out", whole}), &stdout, &stderr); code != ExitOK {
				t.Fatalf("unsharded run: exit %d: %s", code, stderr.String())
			}
			merged, shards := runShards(t, dir, base, 4)
			want, wantStop := readSharded(t, whole)
			got, gotStop := readSharded(t, merged)
			for i, sh := range shards {
				if n, _ := readSharded(t, sh); len(n) == 0 || len(n) == len(want) {
					t.Fatalf("shard %d holds %d of %d requests: the Run was not split", i, len(n), len(want))
				}
			}
			wp, wc := tokenSums(want)
			gp, gc := tokenSums(got)
			t.Logf("Σ prompt tokens %d unsharded, %d merged; Σ cached tokens %d unsharded, %d merged", wp, gp, wc, gc)
			if tc.exactCached && wc == 0 {
				t.Fatal("no cached tokens: the case does not exercise the prefix cache")
			}
			if tc.exactCached && (wantStop.Extra[results.ExtraEvictions] != 0 || gotStop.Extra[results.ExtraEvictions] != 0) {
				t.Fatalf("the cache evicted (%v unsharded, %v sharded): cached tokens would depend on load",
					wantStop.Extra[results.ExtraEvictions], gotStop.Extra[results.ExtraEvictions])
			}
			if !tc.exactCached {
				clearCached(want)
				clearCached(got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("merged shards differ from the unsharded run (-unsharded +merged):\n%s", diff)
			}
			checkMergedSummary(t, whole, merged, tc.exactCached)
		})
	}
}

// runShards runs base as n shards in n processes at once, merges their
// results files and returns the merged file's path and the shards'.
func runShards(t *testing.T, dir string, base []string, n int) (string, []string) {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]string, n)
	errs := make([]bytes.Buffer, n)
	for i := range n {
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		args := slices.Concat(base, []string{"--shard", fmt.Sprintf("%d/%d", i, n), "--out", outs[i]})
		cmds[i] = exec.Command(os.Args[0], "-test.run=^TestShardHelperProcess$", "-test.count=1")
		enc, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		cmds[i].Env = append(os.Environ(), helperArgsEnv+"="+string(enc))
		cmds[i].Stderr = &errs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatalf("start shard %d: %v", i, err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard %d: %v: %s", i, err, errs[i].String())
		}
	}
	merged := filepath.Join(dir, "merged.jsonl")
	var stdout, stderr bytes.Buffer
	if code := Run(slices.Concat([]string{"merge"}, outs, []string{"-o", merged}), &stdout, &stderr); code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr.String())
	}
	return merged, outs
}

// tokenSums returns the server hit rate's inputs: Σ prompt tokens and Σ
// cached tokens.
func tokenSums(rs map[string]shardedRequest) (prompt, cached int) {
	for _, r := range rs {
		prompt += r.PromptTokens
		cached += r.Cached
	}
	return prompt, cached
}

// readSharded reads a results file into its Requests by ID and its stop
// record, requiring unique IDs and a complete file.
func readSharded(t *testing.T, path string) (map[string]shardedRequest, results.Stop) {
	t.Helper()
	rd := openResults(t, path)
	out := map[string]shardedRequest{}
	eachResult(t, rd, func(r *results.Result) {
		if _, dup := out[r.ID]; dup {
			t.Fatalf("%s: request %s twice", path, r.ID)
		}
		out[r.ID] = shardedRequest{Intended: r.Intended, PromptTokens: r.PromptTokens, Completion: r.CompletionTokens,
			Cached: r.CachedTokens, User: r.User, Session: r.Session, OK: fmt.Sprint(r.OK())}
	})
	if rd.Stop == nil || rd.Stop.Reason != "done" {
		t.Fatalf("%s: stop %+v, want done", path, rd.Stop)
	}
	return out, *rd.Stop
}

// clearCached zeroes the cached tokens of rs (they depend on shard state).
func clearCached(rs map[string]shardedRequest) {
	for id, r := range rs {
		r.Cached = 0
		rs[id] = r
	}
}

// checkMergedSummary compares the reports of both files: requests, token
// throughput inputs and (when exact) the server hit rate, and requires
// the merged report to know it came from 4 shards.
func checkMergedSummary(t *testing.T, whole, merged string, exactCached bool) {
	t.Helper()
	w, err := metrics.Summarize(whole, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	m, err := metrics.Summarize(merged, metrics.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Shards != 4 || m.Requests != w.Requests || m.OK != w.OK {
		t.Fatalf("merged: %d shards, %d requests (%d ok); unsharded %d (%d ok)", m.Header.Shards, m.Requests, m.OK,
			w.Requests, w.OK)
	}
	if exactCached && m.HitRate.Server != w.HitRate.Server {
		t.Fatalf("server hit rate merged %v, unsharded %v", m.HitRate.Server, w.HitRate.Server)
	}
}
