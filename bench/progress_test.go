package bench

import (
	"context"
	"github.com/tracebench/tracebench/traces"
	"path/filepath"
	"testing"
	"time"
)

// TestProgressTotal: the progress total is a generated workload's exact
// count (after --max-requests, --duration and --shard) when counted
// within the limit, --max-requests for an unsharded trace, and unknown
// (0) otherwise: past the limit's Requests or time, or once the Run's
// context ends.
func TestProgressTotal(t *testing.T) {
	// A trace's total is never counted, so the file is not opened.
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	base := Workload{Workload: "mixed", WorkloadArgs: traces.Params{{Name: "requests", Value: traces.ParamInt(50)}}, Seed: 1, TimeScale: 1,
		Arrival: "poisson", CV: 1}
	with := func(f func(*Workload)) Workload {
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
		wf   Workload
		lim  countLimit
		want int64
	}{
		{"workload", context.Background(), base, ample, 50},
		{"workload max-requests", context.Background(), with(func(w *Workload) { w.MaxRequests = 20 }), ample, 20},
		{"workload max-requests above its count", context.Background(),
			with(func(w *Workload) { w.MaxRequests = 80 }), ample, 50},
		{"workload at the request limit", context.Background(), base, countLimit{Requests: 50, Time: time.Minute}, 50},
		{"workload past the request limit", context.Background(), base, countLimit{Requests: 49, Time: time.Minute}, 0},
		{"workload past the time limit", context.Background(), base, countLimit{Requests: 1000, Time: -1}, 0},
		{"count ended by the Run", canceled, base, ample, 0},
		{"trace max-requests", context.Background(), with(func(w *Workload) { w.Trace, w.MaxRequests = trace, 30 }), ample, 30},
		{"trace", context.Background(), with(func(w *Workload) { w.Trace = trace }), ample, 0},
		{"sharded trace", context.Background(),
			with(func(w *Workload) { w.Trace, w.MaxRequests, w.Shard = trace, 30, "0/2" }), ample, 0},
		{"bad workload", context.Background(), with(func(w *Workload) { w.Workload = "nope" }), ample, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := progressTotal(tc.ctx, tc.wf, tc.lim); got != tc.want {
				t.Errorf("total %d, want %d", got, tc.want)
			}
		})
	}
	// The shards of a workload add up to it; a duration cuts it short.
	a := progressTotal(context.Background(), with(func(w *Workload) { w.Shard = "0/2" }), ample)
	b := progressTotal(context.Background(), with(func(w *Workload) { w.Shard = "1/2" }), ample)
	if a <= 0 || b <= 0 || a+b != 50 {
		t.Errorf("shards %d + %d, want 50 in all", a, b)
	}
	d := progressTotal(context.Background(), with(func(w *Workload) {
		w.Duration, w.Sessions.Pacing = 3*time.Second, "open"
	}), ample)
	if d <= 0 || d >= 50 {
		t.Errorf("first 3 s of a 50-request open-loop workload at 6 req/s: %d requests", d)
	}
	if c := progressTotal(context.Background(), with(func(w *Workload) { w.Duration = 3 * time.Second }), ample); c != 0 {
		t.Errorf("first 3 s of closed-loop sessions: %d requests, want unknown (0)", c)
	}
	// A Run's own limit leaves ten million Requests uncounted (it stops
	// at a million, or after a quarter of a second).
	huge := with(func(w *Workload) {
		w.WorkloadArgs = traces.Params{{Name: "requests", Value: traces.ParamInt(10000000)}}
	})
	if n := progressTotal(context.Background(), huge, progressCount); n != 0 {
		t.Errorf("a 10,000,000-request workload counted to %d, want unknown (0)", n)
	}
}
