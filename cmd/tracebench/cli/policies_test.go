package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

func init() {
	// Other test files of this package may define -update as a package
	// variable (initialised before any init); define it only if absent.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

// updating reports whether -update was given.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldenSpecs is a fixed registry excerpt, so the golden file does not
// change whenever a policy is added.
var goldenSpecs = []policies.Spec{
	{Name: "prefix-cache", Kind: "router", Doc: "AIBrix prefix-cache-aware routing", Needs: []string{"in-flight", "prompt"},
		Source: "AIBrix", Params: []policies.ParamSpec{
			{Name: "block_size", Kind: traces.KindString, Default: traces.ParamString("auto"), Env: "AIBRIX_PREFIX_CACHE_BLOCK_SIZE", Doc: "units per block"},
			{Name: "std_dev_factor", Kind: traces.KindFloat, Default: traces.ParamFloat(2), Env: "AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR", Doc: "stddev factor"},
		},
		Presets: map[string]policies.Params{"aibrix-code": {"std_dev_factor": traces.ParamFloat(1), "block_size": traces.ParamString("4")}, "a-first": {"block_size": traces.ParamString("8")}}},
	{Name: "random", Kind: "router", Doc: "uniform random backend", Source: "baseline"},
	{Name: "fcfs", Kind: "queue", Doc: "release in arrival order", Source: "baseline",
		Params: []policies.ParamSpec{{Name: "depth", Kind: traces.KindInt, Default: traces.ParamInt(0), Doc: "no env"}}},
}

func TestWritePoliciesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := writePolicies(&buf, goldenSpecs); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "policies.golden")
	if updating() {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestWritePoliciesGolden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("policies output (-golden +got):\n%s", diff)
	}
}

func TestPoliciesCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
		absent   []string
	}{
		{name: "all", args: []string{"policies"}, code: ExitOK,
			contains: append(policies.Names(policies.KindRouter), "ROUTERS (--policy NAME)", "QUEUES (--queue NAME)", "AIBRIX_PREFIX_CACHE_BLOCK_SIZE", "aibrix-code (")},
		{name: "one router", args: []string{"policies", "chwbl"}, code: ExitOK,
			contains: []string{"chwbl", "kubeai-code (count_new_request=true)", "load_factor"}, absent: []string{"prefix-cache", "QUEUES"}},
		{name: "routers only", args: []string{"policies", "--kind", "router"}, code: ExitOK,
			contains: []string{"vtc-basic", "AIBRIX_ROUTER_VTC_TOKEN_TRACKER_WINDOW_SIZE"}, absent: []string{"QUEUES"}},
		{name: "unknown name", args: []string{"policies", "fastest"}, code: ExitUsage, contains: []string{`unknown policy "fastest"`}},
		{name: "bad kind", args: []string{"policies", "--kind", "both"}, code: ExitUsage, contains: []string{`--kind "both"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Run(tc.args, &out, &errOut); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errOut.String())
			}
			text := out.String() + errOut.String()
			for _, s := range tc.contains {
				if !strings.Contains(text, s) {
					t.Errorf("output lacks %q", s)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(text, s) {
					t.Errorf("output has %q", s)
				}
			}
		})
	}
}

// TestPolicyParameterErrors: a bad policy parameter, from a flag, a
// --policy-config file or an environment variable, fails before the run
// (no results file) with one line naming the parameter and the usage
// exit code.
func TestPolicyParameterErrors(t *testing.T) {
	dir := t.TempDir()
	badYAML := writeFile(t, dir, "bad.yaml", "router:\n  name: prefix-cache\n  params:\n    std_dev_factor: -1\n")
	badQueueYAML := writeFile(t, dir, "badq.yaml", "queue:\n  name: multi-bin\n  params:\n    mode: eager\n")
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		code     int
		mentions []string
	}{
		{"router flag", []string{"--policy", "prefix-cache", "--router-param", "block_size=0"},
			nil, ExitUsage, []string{"parameter block_size"}},
		{"queue flag", []string{"--queue", "multi-bin", "--queue-param", "b_min=9", "--queue-param", "b_max=8"},
			nil, ExitUsage, []string{"parameter b_max"}},
		{"unknown parameter", []string{"--policy", "chwbl", "--router-param", "prefix_len=10"},
			nil, ExitUsage, []string{`unknown parameter "prefix_len"`}},
		{"router file", []string{"--policy", "prefix-cache", "--policy-config", badYAML},
			nil, ExitUsage, []string{"bad.yaml line 4", "router.params.std_dev_factor"}},
		{"queue file", []string{"--queue", "multi-bin", "--policy-config", badQueueYAML},
			nil, ExitUsage, []string{"badq.yaml line 4", "queue.params.mode"}},
		{"router file without --policy", []string{"--policy-config", badYAML},
			nil, ExitUsage, []string{"bad.yaml line 4", "router.params.std_dev_factor"}},
		{"router environment", []string{"--policy", "prefix-cache"},
			map[string]string{"AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR": "lots"}, ExitUsage,
			[]string{"parameter std_dev_factor", "AIBRIX_PREFIX_CACHE_STANDARD_DEVIATION_FACTOR"}},
		{"queue environment", []string{"--queue", "multi-bin"},
			map[string]string{"D_SLA": "soon"}, ExitUsage, []string{"parameter d_sla", "D_SLA"}},
		{"negative capacity", []string{"--backend-capacity", "-1"}, nil, ExitUsage, []string{"--backend-capacity", "negative"}},
		{"negative token budget", []string{"--backend-token-budget", "-5"}, nil, ExitUsage, []string{"--backend-token-budget"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			out := filepath.Join(t.TempDir(), "r.jsonl")
			wantOneLineError(t, append([]string{"replay", "--sim", "1", "--max-requests", "5", "--out", out}, tc.args...), tc.code, tc.mentions)
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("results file %s exists (stat error %v): the run started", out, err)
			}
		})
	}
}
