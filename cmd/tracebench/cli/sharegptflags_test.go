package cli

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/traces"
)

// shareGPTFixture writes two conversations: the first with two human
// turns ("a b c", then "f g" after the answer "d e"), the second with
// one ("hello world").
func shareGPTFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sharegpt.json")
	data := `[{"id": "c0", "conversations": [{"from": "human", "value": "a b c"}, {"from": "gpt", "value": "d e"},
  {"from": "human", "value": "f g"}, {"from": "gpt", "value": "h"}]},
 {"id": "c1", "conversations": [{"from": "human", "value": "hello world"}]}]`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShareGPTFlagsChangeRequests: each ShareGPT flag changes the
// Requests read through the replay/bench/sweep trace input: the gap
// moves the second conversation, the think time the second turn, the
// tokenizer the token counts.
func TestShareGPTFlagsChangeRequests(t *testing.T) {
	path := shareGPTFixture(t)
	tests := []struct {
		name     string
		args     []string
		arrivals []time.Duration
		// first is the first Request's InputTokens ("a b c").
		first int
	}{
		{"defaults", nil, []time.Duration{0, time.Second, 10 * time.Second}, 3},
		{"gap", []string{"--sharegpt-gap", "5s"}, []time.Duration{0, 5 * time.Second, 10 * time.Second}, 3},
		{"think", []string{"--sharegpt-think", "2s"}, []time.Duration{0, time.Second, 2 * time.Second}, 3},
		{"tokenizer", []string{"--sharegpt-tokenizer", "character"}, []time.Duration{0, time.Second, 10 * time.Second}, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var wf workloadFlags
			fs := pflag.NewFlagSet("replay", pflag.ContinueOnError)
			flags.BindWorkload(fs, &wf, "mixed")
			if err := fs.Parse(append([]string{"--trace", path}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			src, err := bench.OpenSource(wf)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var got []time.Duration
			first := -1
			for {
				r, err := src.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if first < 0 {
					first = r.InputTokens
				}
				got = append(got, r.Arrival)
			}
			if d := cmp.Diff(tc.arrivals, got); d != "" {
				t.Errorf("arrivals (-want +got):\n%s", d)
			}
			if first != tc.first {
				t.Errorf("first request %d input tokens, want %d", first, tc.first)
			}
		})
	}
}

// TestShareGPTFlagsTraceStats: trace stats reads the flags too (the
// span is the second turn's arrival).
func TestShareGPTFlagsTraceStats(t *testing.T) {
	path := shareGPTFixture(t)
	code, out, errOut := runCLI(t, "trace", "stats", "--json", "--sharegpt-think", "3s", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var st struct {
		Format string  `json:"trace"`
		Span   float64 `json:"span_s"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.Span != 3 || !strings.Contains(st.Format, "("+traces.FormatShareGPT+")") {
		t.Errorf("%s: span %v s, want 3", st.Format, st.Span)
	}
}

// TestShareGPTFlagsUsageErrors: bad values, and values set for a trace
// of another format or a generated workload, are usage errors naming
// the flag.
func TestShareGPTFlagsUsageErrors(t *testing.T) {
	path := shareGPTFixture(t)
	native := filepath.Join(t.TempDir(), "native.jsonl")
	if code, _, errOut := runCLI(t, "trace", "gen", "--workload", "mixed", "-p", "requests=3", "-o", native); code != ExitOK {
		t.Fatalf("trace gen: %s", errOut)
	}
	out := filepath.Join(t.TempDir(), "r.jsonl")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"think 0", []string{"replay", "--sim", "1", "--trace", path, "--sharegpt-think", "0s", "--out", out}, "--sharegpt-think 0s: want > 0"},
		{"negative gap", []string{"bench", "--sim", "1", "--trace", path, "--sharegpt-gap", "-1s", "--out", out}, "--sharegpt-gap -1s: want > 0"},
		{"tokenizer", []string{"sweep", "--sim", "1", "--trace", path, "--sharegpt-tokenizer", "bpe", "--out", out}, "--sharegpt-tokenizer"},
		{"other format", []string{"replay", "--sim", "1", "--trace", native, "--sharegpt-gap", "2s", "--out", out}, "--sharegpt-gap applies to ShareGPT traces only; the trace is native"},
		{"workload", []string{"replay", "--sim", "1", "--sharegpt-tokenizer", "character", "--out", out}, "not to a generated workload"},
		{"trace stats workload", []string{"trace", "stats", "--workload", "mixed", "--sharegpt-think", "1s"}, "--sharegpt-think applies"},
		{"trace convert bad think", []string{"trace", "convert", path, "--sharegpt-think", "-2s"}, "--sharegpt-think -2s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q; want %d and one line with %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}
