package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the command line and returns exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestTraceGenDeterministic(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, f := range []string{a, b} {
		code, _, errOut := runCLI(t, "trace", "gen", "--workload", "mixed", "-p", "requests=50", "--seed", "5", "-o", f)
		if code != 0 || !strings.Contains(errOut, "wrote 50 requests") {
			t.Fatalf("gen exit %d: %s", code, errOut)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || !bytes.Equal(da, db) {
		t.Fatal("the same seed gave different files")
	}
	code, out, _ := runCLI(t, "trace", "stats", a)
	if code != 0 || !strings.Contains(out, "(native)") || !strings.Contains(out, "requests       50") {
		t.Fatalf("stats of the generated file, exit %d:\n%s", code, out)
	}
}

func TestTraceUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "gen"}, "--workload is required"},
		{[]string{"trace", "gen", "--workload", "nope"}, `unknown workload "nope"`},
		{[]string{"trace", "gen", "--workload", "mixed", "-p", "bogus=1"}, `unknown parameter "bogus"`},
		{[]string{"trace", "gen", "--workload", "mixed", "-p", "novalue"}, "want key=value"},
		{[]string{"trace", "gen", "--workload", "mixed", "--arrival", "weibull"}, "--arrival"},
		{[]string{"trace", "gen", "--workload", "mixed", "--rate", "2", "--arrival", "gamma", "--cv", "0"}, "--cv 0: want > 0"},
		{[]string{"trace", "stats"}, "give a trace FILE or --workload"},
		{[]string{"trace", "convert", "x.csv", "--to", "csv"}, "only native"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := runCLI(t, tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}

func TestTraceMalformedAndSkip(t *testing.T) {
	f := filepath.Join(t.TempDir(), "bad.jsonl")
	text := `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}` + "\n" +
		`{"timestamp": 1, "input_length": "ten", "output_length": 5, "hash_ids": [0]}` + "\n" +
		`{"timestamp": 2, "input_length": 10, "output_length": 5, "hash_ids": [1]}` + "\n"
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "trace", "stats", f)
	if code != ExitError || !strings.Contains(errOut, f+" line 2 field input_length") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCLI(t, "trace", "stats", "--skip-invalid", f)
	if code != 0 || !strings.Contains(out, "requests                 2\n") || !strings.Contains(out, "skipped                  1 malformed record\n") {
		t.Fatalf("exit %d, stdout:\n%s", code, out)
	}
	code, _, errOut = runCLI(t, "trace", "convert", "--skip-invalid", f, "-o", filepath.Join(t.TempDir(), "out.jsonl"))
	if code != 0 || !strings.Contains(errOut, "converted 2 requests") || !strings.Contains(errOut, "(skipped 1 malformed record)") {
		t.Fatalf("convert --skip-invalid exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "replay", "--sim", "1", "--skip-invalid", "--trace", f,
		"--out", filepath.Join(t.TempDir(), "r.jsonl"))
	if code != 0 || !strings.Contains(errOut, "tracebench: skipped 1 malformed record of "+f+"\n") {
		t.Fatalf("replay --skip-invalid exit %d, stderr %q", code, errOut)
	}
}

func TestTraceConvertKeepsStats(t *testing.T) {
	src := filepath.Join("..", "..", "..", "..", "shared", "traces", "vtc_lmsys_arena", "real_trace.jsonl")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("shared trace %s not present: %v", src, err)
	}
	dst := filepath.Join(t.TempDir(), "vtc.jsonl")
	code, _, errOut := runCLI(t, "trace", "convert", src, "--to", "native", "-o", dst)
	if code != 0 || !strings.Contains(errOut, "converted 1500 requests") {
		t.Fatalf("convert exit %d: %s", code, errOut)
	}
	_, a, _ := runCLI(t, "trace", "stats", "--json", src)
	_, b, _ := runCLI(t, "trace", "stats", "--json", dst)
	strip := func(s string) string { return s[strings.Index(s, `"skipped"`):] }
	if strip(a) != strip(b) {
		t.Errorf("stats differ after conversion:\n%s\n%s", a, b)
	}
	// A window: 60 s of trace starting at 300 s holds the 127 requests
	// with 300 <= timestamp_s < 360; at --time-scale 0.5 the same 60 s
	// of replay cover 120 s of trace.
	for _, tc := range []struct {
		scale string
		want  string
	}{{"1", `"requests":127,`}, {"0.5", `"requests":291,`}} {
		code, out, _ := runCLI(t, "trace", "stats", "--json", "--start", "300s", "--duration", "60s", "--time-scale", tc.scale, src)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Fatalf("window stats at scale %s: exit %d, want %s in\n%s", tc.scale, code, tc.want, out)
		}
	}
}
