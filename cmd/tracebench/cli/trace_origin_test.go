package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTraceStatsOffsetTrace checks a trace whose clock starts late (a
// slice cut from a longer trace) is described from its first record:
// --duration keeps the requests of its first minutes, --start skips,
// and the header names the original offset.
func TestTraceStatsOffsetTrace(t *testing.T) {
	var b strings.Builder
	for i := range 100 { // one request every 10 s from 1,178,625 ms
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 10, "output_length": 2}`+"\n", 1178625+10000*i)
	}
	path := filepath.Join(t.TempDir(), "slice.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{nil, "requests       100"},
		{nil, "(mooncake, starts at 1178.625 s)"},
		{[]string{"--duration", "300s"}, "requests       30"},
		{[]string{"--start", "60s"}, "requests       94"},
		{[]string{"--start", "60s", "--duration", "100s"}, "requests       10"},
	}
	for _, tc := range tests {
		code, out, errOut := runCLI(t, append([]string{"trace", "stats", path}, tc.args...)...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("trace stats %v: exit %d, want %q in\n%s%s", tc.args, code, tc.want, out, errOut)
		}
	}
}

// TestAllSkippedFails checks a replay or conversion in which every record
// was malformed and skipped exits non-zero, saying so.
func TestAllSkippedFails(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.jsonl")
	text := `{"timestamp": 0, "input_length": "ten", "output_length": 5}` + "\n" +
		`{"timestamp": 1, "input_length": -1, "output_length": 5}` + "\n"
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "--sim", "1", "--skip-invalid", "--trace", f, "--out", filepath.Join(t.TempDir(), "r.jsonl")},
		{"trace", "convert", "--skip-invalid", f, "-o", filepath.Join(t.TempDir(), "out.jsonl")},
	} {
		code, _, errOut := runCLI(t, args...)
		if code != ExitError || !strings.Contains(errOut, "every record of "+f+" was malformed: skipped 2 malformed records") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut)
		}
	}
}

// TestTimeUnitFlag checks --time-unit reaches the reader in trace and
// run commands, and is refused for generated workloads.
func TestTimeUnitFlag(t *testing.T) {
	var b strings.Builder
	for i := range 40 { // seconds, 4 req/s
		fmt.Fprintf(&b, `{"timestamp": %.2f, "input_length": 10, "output_length": 2}`+"\n", 0.25*float64(i)+0.01)
	}
	f := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "trace", "stats", f); code != ExitError || !strings.Contains(errOut, "--time-unit s") {
		t.Errorf("stats without --time-unit: exit %d, stderr %q", code, errOut)
	}
	if code, out, errOut := runCLI(t, "trace", "stats", "--time-unit", "s", f); code != 0 || !strings.Contains(out, "span           9.8 s") {
		t.Errorf("stats --time-unit s: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := runCLI(t, "replay", "--sim", "1", "--time-unit", "s", "--trace", f, "--out", filepath.Join(t.TempDir(), "r.jsonl"))
	if code != 0 {
		t.Errorf("replay --time-unit s: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "trace", "stats", "--workload", "mixed", "--time-unit", "s"); code != ExitUsage || !strings.Contains(errOut, "--time-unit applies to a trace file") {
		t.Errorf("workload --time-unit: exit %d, stderr %q", code, errOut)
	}
}

// TestFairQueueWithoutCapacityWarns checks vtc and lcf without a backend
// capacity warn that they act as fcfs, and say nothing with one or for
// fcfs.
func TestFairQueueWithoutCapacityWarns(t *testing.T) {
	tests := []struct {
		args []string
		warn bool
	}{
		{[]string{"--queue", "vtc"}, true},
		{[]string{"--queue", "lcf"}, true},
		{[]string{"--queue", "vtc", "--backend-capacity", "4"}, false},
		{[]string{"--queue", "vtc", "--backend-token-budget", "4000"}, false},
		{[]string{"--queue", "fcfs"}, false},
	}
	for _, tc := range tests {
		args := append([]string{"replay", "--sim", "1", "--workload", "multi-tenant", "-p", "requests=20",
			"--out", filepath.Join(t.TempDir(), "r.jsonl")}, tc.args...)
		code, _, errOut := runCLI(t, args...)
		warned := strings.Contains(errOut, "holds no request back and acts as fcfs; set --backend-capacity to the requests an engine runs at once (at most its max_num_seqs, 256")
		if code != 0 || warned != tc.warn {
			t.Errorf("%v: exit %d, warned %v, want %v; stderr %q", tc.args, code, warned, tc.warn, errOut)
		}
	}
}

// TestTooLongForPresetSaysWhatFits checks a run whose requests exceed the
// mock engines' context says how many were rejected and which preset or
// flag fits them.
func TestTooLongForPresetSaysWhatFits(t *testing.T) {
	tests := []struct {
		input int
		want  string
	}{
		{100, ""},
		{9000, "tracebench: 2 of 4 requests (50.0 %) need more than the mock engines' 8192 tokens (prompt + max output; preset default) " +
			"and were rejected as too long; the longest needs 9010: --mock-profile long-context (131072 tokens) fits every one"},
		{200000, "the longest needs 200010, more than any preset: set --mock-set max_model_len=200010 and --mock-blocks=12501 (16-token blocks)"},
	}
	for _, tc := range tests {
		var b strings.Builder
		for i := range 4 {
			in := 100
			if i%2 == 1 {
				in = tc.input
			}
			fmt.Fprintf(&b, `{"arrival_ns": %d, "input_tokens": %d, "output_tokens": 10}`+"\n", i*1000000, in)
		}
		f := filepath.Join(t.TempDir(), "long.jsonl")
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, errOut := runCLI(t, "replay", "--sim", "1", "--trace", f, "--out", filepath.Join(t.TempDir(), "r.jsonl"))
		if tc.want == "" && strings.Contains(errOut, "too long") || !strings.Contains(errOut, tc.want) {
			t.Errorf("input %d: stderr %q, want %q", tc.input, errOut, tc.want)
		}
	}
}

// TestReplayOffsetTraceFromFirstRecord checks a simulated replay of a
// trace whose clock starts at 1,178,625 ms measures from its first
// request: the window is the trace's own span and the rate its own.
func TestReplayOffsetTraceFromFirstRecord(t *testing.T) {
	var b strings.Builder
	for i := range 60 { // 2 req/s for 30 s
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 20, "output_length": 4}`+"\n", 1178625+500*i)
	}
	path := filepath.Join(t.TempDir(), "slice.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, s := simReplay(t, "replay", "--sim", "1", "--trace", path)
	if s.Window.Seconds > 40 || s.Throughput.Requests < 1.8 {
		t.Errorf("window %.1f s, %.2f req/s: want the trace's own 30 s at about 2 req/s", s.Window.Seconds, s.Throughput.Requests)
	}
	if !strings.Contains(s.Header.Trace, "starts at 1178.625 s") {
		t.Errorf("header trace %q does not name the original offset", s.Header.Trace)
	}
}
