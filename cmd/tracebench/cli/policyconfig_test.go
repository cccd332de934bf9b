package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// readHeader returns the run header of a results file.
func readHeader(t *testing.T, path string) results.Header {
	t.Helper()
	return openResults(t, path).Header
}

// writeFile writes text to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPolicyConfigSelectsPolicies: the router and queue a --policy-config
// file names run when --policy/--queue are not given (a differing flag is
// a usage error), bench and sweep apply its router parameters to that
// router only, and the results header records every parameter with its
// effective value, whether it came from a default, a preset, the
// environment, the file or a flag.
func TestPolicyConfigSelectsPolicies(t *testing.T) {
	dir := t.TempDir()
	pc := writeFile(t, dir, "pc.yaml", "router:\n  name: prefix-cache\n  params:\n    block_size: 64\n")
	vtc := writeFile(t, dir, "vtc.yaml", "queue:\n  name: vtc\n  params: {w_out: 3}\n")
	preset := writeFile(t, dir, "preset.yaml", "router:\n  name: prefix-cache\n  preset: aibrix-code\n")
	anon := writeFile(t, dir, "anon.yaml", "router:\n  params:\n    block_size: 32\n")
	run := []string{"--sim", "1", "--max-requests", "5"}
	type file struct {
		name           string
		router, queue  string
		rparams, qparm map[string]string
	}
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		mentions []string
		files    []file
	}{
		{name: "replay takes the file's router", args: []string{"replay", "--policy-config", pc},
			files: []file{{name: "r.jsonl", router: "prefix-cache", queue: "fcfs",
				rparams: map[string]string{"block_size": "64", "block_number": "200000", "tokenizer": "character"}}}},
		{name: "replay same router in flag and file", args: []string{"replay", "--policy", "prefix-cache", "--policy-config", pc},
			files: []file{{name: "r.jsonl", router: "prefix-cache", queue: "fcfs", rparams: map[string]string{"block_size": "64"}}}},
		{name: "replay router flag differs", args: []string{"replay", "--policy", "least-request", "--policy-config", pc},
			code: ExitUsage, mentions: []string{"--policy least-request", "pc.yaml", "prefix-cache"}},
		{name: "replay takes the file's queue", args: []string{"replay", "--policy-config", vtc},
			files: []file{{name: "r.jsonl", router: "round-robin", queue: "vtc",
				qparm: map[string]string{"w_out": "3", "w_in": "1"}}}},
		{name: "replay queue flag differs", args: []string{"replay", "--queue", "fcfs", "--policy-config", vtc},
			code: ExitUsage, mentions: []string{"--queue fcfs", "vtc.yaml", "vtc"}},
		{name: "header resolves preset, environment, file and flag",
			args: []string{"replay", "--policy-config", preset, "--router-param", "std_dev_factor=3"},
			env:  map[string]string{"AIBRIX_PREFIX_CACHE_BLOCK_NUMBER": "1000"},
			files: []file{{name: "r.jsonl", router: "prefix-cache", queue: "fcfs", rparams: map[string]string{
				"preset": "aibrix-code", "block_size": "4", "imbalance_abs_count": "8", "block_number": "1000",
				"std_dev_factor": "3", "eviction_duration_mins": "20", "tokenizer": "character"}}}},
		{name: "file without a router name applies to --policy", args: []string{"replay", "--policy", "prefix-cache", "--policy-config", anon},
			files: []file{{name: "r.jsonl", router: "prefix-cache", queue: "fcfs", rparams: map[string]string{"block_size": "32"}}}},
		{name: "bench applies the file to its router only",
			args: []string{"bench", "--policies", "round-robin,prefix-cache", "--policy-config", pc},
			files: []file{{name: "results-round-robin.jsonl", router: "round-robin", queue: "fcfs", rparams: map[string]string{}},
				{name: "results-prefix-cache.jsonl", router: "prefix-cache", queue: "fcfs", rparams: map[string]string{"block_size": "64"}}}},
		{name: "bench takes the file's queue", args: []string{"bench", "--policies", "round-robin", "--policy-config", vtc},
			files: []file{{name: "results-round-robin+vtc.jsonl", router: "round-robin", queue: "vtc", qparm: map[string]string{"w_out": "3"}}}},
		{name: "bench without the file's router", args: []string{"bench", "--policies", "round-robin,least-request", "--policy-config", pc},
			code: ExitUsage, mentions: []string{"pc.yaml", "prefix-cache", "--policies"}},
		{name: "sweep without the file's router", args: []string{"sweep", "--policies", "round-robin", "--rates", "5", "--policy-config", pc},
			code: ExitUsage, mentions: []string{"pc.yaml", "prefix-cache", "--policies"}},
		{name: "sweep queue flag differs", args: []string{"sweep", "--policies", "round-robin", "--rates", "5", "--queue", "fcfs", "--policy-config", vtc},
			code: ExitUsage, mentions: []string{"--queue fcfs", "vtc.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			out := t.TempDir()
			target := filepath.Join(out, "r.jsonl")
			if tc.args[0] != "replay" {
				target = out
			}
			args := append(append(append([]string{}, tc.args...), run...), "--out", target)
			code, _, errOut := runCLI(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(errOut, m) {
					t.Errorf("error %q does not mention %q", errOut, m)
				}
			}
			for _, f := range tc.files {
				h := readHeader(t, filepath.Join(out, f.name))
				if h.Router != f.router || h.Queue != f.queue {
					t.Errorf("%s: ran %s+%s, want %s+%s", f.name, h.Router, h.Queue, f.router, f.queue)
				}
				checkParams(t, f.name+" router", h.RouterParams, f.rparams)
				checkParams(t, f.name+" queue", h.QueueParams, f.qparm)
				checkComplete(t, policies.KindRouter, h.Router, h.RouterParams)
				checkComplete(t, policies.KindQueue, h.Queue, h.QueueParams)
			}
		})
	}
}

// checkComplete checks a header records every parameter of the policy.
func checkComplete(t *testing.T, kind policies.Kind, name string, got map[string]string) {
	t.Helper()
	spec, err := policies.Lookup(kind, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, ps := range spec.Params {
		if _, ok := got[ps.Name]; !ok {
			t.Errorf("%s %s: header lacks parameter %s (has %v)", kind, name, ps.Name, got)
		}
	}
}

// checkParams checks got holds want; an empty, non-nil want means none.
func checkParams(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	if want != nil && len(want) == 0 && len(got) != 0 {
		t.Errorf("%s params %v, want none", what, got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s param %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}
