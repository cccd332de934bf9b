package cli

import (
	"path/filepath"
	"testing"
	"time"
)

// TestWorkloadIdent: a generated workload is named with its given
// parameters as sorted k=v pairs, and none when none were given, in the
// run header (openSource) and in the trace commands (traceInput.open).
func TestWorkloadIdent(t *testing.T) {
	tests := []struct {
		workload string
		params   []string
		seed     uint64
		want     string
	}{
		{"mixed", nil, 1, "workload mixed seed 1"},
		{"shared-prefix", []string{"system_len=64", "groups=8"}, 1, "workload shared-prefix groups=8 system_len=64 seed 1"},
		{"multi-turn", []string{"requests=20"}, 7, "workload multi-turn requests=20 seed 7"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			src, err := openSource(workloadFlags{Workload: tc.workload, WorkloadArgs: tc.params, Seed: tc.seed,
				TimeScale: 1, Arrival: "poisson", CV: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer src.close()
			if src.ident != tc.want {
				t.Errorf("run header names %q, want %q", src.ident, tc.want)
			}
			in := traceInput{Workload: tc.workload, Params: tc.params, Seed: tc.seed}
			_, name, _, closeSrc, err := in.open("")
			if err != nil {
				t.Fatal(err)
			}
			defer closeSrc()
			if name != tc.want {
				t.Errorf("trace commands name %q, want %q", name, tc.want)
			}
		})
	}
}

// TestProgressTotal: the progress total is a generated workload's exact
// count (after --max-requests, --duration and --shard), --max-requests
// for an unsharded trace, and unknown (0) otherwise.
func TestProgressTotal(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	if code, _, errOut := runCLI(t, "trace", "gen", "--workload", "mixed", "-p", "requests=40", "-o", trace); code != ExitOK {
		t.Fatalf("trace gen: %s", errOut)
	}
	base := workloadFlags{Workload: "mixed", WorkloadArgs: []string{"requests=50"}, Seed: 1, TimeScale: 1,
		Arrival: "poisson", CV: 1}
	with := func(f func(*workloadFlags)) workloadFlags {
		wf := base
		f(&wf)
		return wf
	}
	tests := []struct {
		name string
		wf   workloadFlags
		want int64
	}{
		{"workload", base, 50},
		{"workload max-requests", with(func(w *workloadFlags) { w.MaxRequests = 20 }), 20},
		{"workload max-requests above its count", with(func(w *workloadFlags) { w.MaxRequests = 80 }), 50},
		{"trace max-requests", with(func(w *workloadFlags) { w.Trace, w.MaxRequests = trace, 30 }), 30},
		{"trace", with(func(w *workloadFlags) { w.Trace = trace }), 0},
		{"sharded trace", with(func(w *workloadFlags) { w.Trace, w.MaxRequests, w.Shard = trace, 30, "0/2" }), 0},
		{"bad workload", with(func(w *workloadFlags) { w.Workload = "nope" }), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressTotal(tc.wf); got != tc.want {
				t.Errorf("total %d, want %d", got, tc.want)
			}
		})
	}
	// The shards of a workload add up to it; a duration cuts it short.
	a := progressTotal(with(func(w *workloadFlags) { w.Shard = "0/2" }))
	b := progressTotal(with(func(w *workloadFlags) { w.Shard = "1/2" }))
	if a <= 0 || b <= 0 || a+b != 50 {
		t.Errorf("shards %d + %d, want 50 in all", a, b)
	}
	if d := progressTotal(with(func(w *workloadFlags) { w.Duration = 3 * time.Second })); d <= 0 || d >= 50 {
		t.Errorf("first 3 s of a 50-request workload at 6 req/s: %d requests", d)
	}
}
