package sim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/engine"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// vtcTrace is the VTC Chatbot Arena trace (1,500 requests from 27
// clients over 600 s) in the shared trace directory.
const vtcTrace = "../../shared/traces/vtc_lmsys_arena/real_trace.jsonl"

// TestSimulateTraceDeterministic simulates windows of real traces twice
// with the same seeds and requires byte-identical results files: every
// Result, queue state event and the stop record (the header's wall-clock
// Started is zero here). The windows exercise prefix-cache eviction under
// long Mooncake prompts, and a fairness queue holding requests behind a
// per-backend capacity.
func TestSimulateTraceDeterministic(t *testing.T) {
	long, err := profile.BuiltinConfig("long-context")
	if err != nil {
		t.Fatal(err)
	}
	small := long
	small.NumGPUBlocks = 8192 // one max_model_len of KV: the cache evicts all the time
	for _, tc := range []struct {
		name string
		run  traceRun
		// exercised checks the window did what it is here for.
		exercised func(stop results.Stop, sum *metrics.Summary) bool
	}{
		{"mooncake/prefix-cache", traceRun{path: mooncakeTrace, engine: small, engines: 4, router: "prefix-cache", max: 200},
			func(stop results.Stop, sum *metrics.Summary) bool {
				return stop.Extra[results.ExtraEvictions] > 0 && sum.HitRate.Server > 0
			}},
		{"vtc/least-request+vtc", traceRun{path: vtcTrace, engine: engine.DefaultConfig(), engines: 2,
			router: "least-request", queue: "vtc", capacity: policies.Capacity{Requests: 4}, max: 400},
			func(_ results.Stop, sum *metrics.Summary) bool { return sum.QueueWait.Max > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.run.path); err != nil {
				t.Skipf("trace not available (%v); it lives in ../shared/traces", err)
			}
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
			stop, sum := simulateTrace(t, tc.run, a)
			simulateTrace(t, tc.run, b)
			if stop.Reason != "done" || sum.Requests != int64(tc.run.max) || sum.OK != sum.Requests {
				t.Fatalf("stop %q, %d requests (%d ok), want done with %d ok", stop.Reason, sum.Requests, sum.OK, tc.run.max)
			}
			if !tc.exercised(stop, sum) {
				t.Fatalf("the window did not exercise what it is for: stop extra %v, hit rate %v, queue wait max %v ms",
					stop.Extra, sum.HitRate.Server, sum.QueueWait.Max)
			}
			ba, errA := os.ReadFile(a)
			bb, errB := os.ReadFile(b)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if !bytes.Equal(ba, bb) {
				t.Fatalf("same seeds, different results files:\n%s", firstDiff(ba, bb))
			}
		})
	}
}

// firstDiff returns the first differing line of two files.
func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d:\n%s\n%s", i+1, la[i], lb[i])
		}
	}
	return "one file is a prefix of the other"
}
