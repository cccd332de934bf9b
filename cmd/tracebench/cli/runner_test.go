package cli

import (
	"context"
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
// count (after --max-requests, --duration and --shard) when counted
// within the limit, --max-requests for an unsharded trace, and unknown
// (0) otherwise: past the limit's Requests or time, or once the Run's
// context ends.
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
	ample := countLimit{Requests: 1000, Time: time.Minute}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		wf   workloadFlags
		lim  countLimit
		want int64
	}{
		{"workload", context.Background(), base, ample, 50},
		{"workload max-requests", context.Background(), with(func(w *workloadFlags) { w.MaxRequests = 20 }), ample, 20},
		{"workload max-requests above its count", context.Background(),
			with(func(w *workloadFlags) { w.MaxRequests = 80 }), ample, 50},
		{"workload at the request limit", context.Background(), base, countLimit{Requests: 50, Time: time.Minute}, 50},
		{"workload past the request limit", context.Background(), base, countLimit{Requests: 49, Time: time.Minute}, 0},
		{"workload past the time limit", context.Background(), base, countLimit{Requests: 1000, Time: -1}, 0},
		{"count ended by the Run", canceled, base, ample, 0},
		{"trace max-requests", context.Background(), with(func(w *workloadFlags) { w.Trace, w.MaxRequests = trace, 30 }), ample, 30},
		{"trace", context.Background(), with(func(w *workloadFlags) { w.Trace = trace }), ample, 0},
		{"sharded trace", context.Background(),
			with(func(w *workloadFlags) { w.Trace, w.MaxRequests, w.Shard = trace, 30, "0/2" }), ample, 0},
		{"bad workload", context.Background(), with(func(w *workloadFlags) { w.Workload = "nope" }), ample, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressTotal(tc.ctx, tc.wf, tc.lim); got != tc.want {
				t.Errorf("total %d, want %d", got, tc.want)
			}
		})
	}
	// The shards of a workload add up to it; a duration cuts it short.
	a := progressTotal(context.Background(), with(func(w *workloadFlags) { w.Shard = "0/2" }), ample)
	b := progressTotal(context.Background(), with(func(w *workloadFlags) { w.Shard = "1/2" }), ample)
	if a <= 0 || b <= 0 || a+b != 50 {
		t.Errorf("shards %d + %d, want 50 in all", a, b)
	}
	d := progressTotal(context.Background(), with(func(w *workloadFlags) { w.Duration = 3 * time.Second }), ample)
	if d <= 0 || d >= 50 {
		t.Errorf("first 3 s of a 50-request workload at 6 req/s: %d requests", d)
	}
	// A Run's own limit leaves ten million Requests uncounted (it stops
	// at a million, or after a quarter of a second).
	huge := with(func(w *workloadFlags) { w.WorkloadArgs = []string{"requests=10000000"} })
	if n := progressTotal(context.Background(), huge, progressCount); n != 0 {
		t.Errorf("a 10,000,000-request workload counted to %d, want unknown (0)", n)
	}
}
