package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportTestdata are results files of three runs kept by the reports
// package for its golden tests.
var reportTestdata = []string{
	filepath.Join("..", "..", "..", "reports", "testdata", "results-round-robin.jsonl"),
	filepath.Join("..", "..", "..", "reports", "testdata", "results-prefix-cache.jsonl"),
}

func runReportCLI(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		args  []string
		out   []string // substrings of standard output
		files []string // files that must exist under dir
	}{
		{"table", nil, []string{"round-robin", "prefix-cache", "TTFT p99 ms"}, nil},
		{"table and files", []string{"--out", filepath.Join(dir, "t")}, []string{"report:"},
			[]string{"t/report.md", "t/report.html", "t/summary.csv", "t/summary.json", "t/plots/ttft_cdf.svg"}},
		{"md", []string{"--format", "md", "--out", filepath.Join(dir, "m"), "--png"}, []string{"report:"},
			[]string{"m/report.md", "m/report.html", "m/plots/ttft_cdf.png"}},
		{"csv to stdout", []string{"--format", "csv"}, []string{"policy,router,queue", "\nround-robin+vtc,round-robin,vtc,"}, nil},
		{"json to dir", []string{"--format", "json", "--out", filepath.Join(dir, "j")}, nil, []string{"j/summary.json"}},
		{"requests csv", []string{"--format", "csv", "--requests-csv", filepath.Join(dir, "req.csv"), "--warmup", "5s"},
			nil, []string{"req.csv"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"report"}, reportTestdata...), tt.args...)
			code, out, errOut := runReportCLI(args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, s := range tt.out {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
			for _, f := range tt.files {
				if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

func TestReportErrors(t *testing.T) {
	badSLO := filepath.Join(t.TempDir(), "slo.yaml")
	if err := os.WriteFile(badSLO, []byte("users:\n  a: {ttft: soon}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no files", []string{"report"}, ExitUsage, "at least one results file"},
		{"bad format", []string{"report", reportTestdata[0], "--format", "pdf"}, ExitUsage, `--format: "pdf"`},
		{"negative warmup", []string{"report", reportTestdata[0], "--warmup", "-1s"}, ExitUsage, "--warmup"},
		{"bad SLO file", []string{"report", reportTestdata[0], "--slo-file", badSLO}, ExitUsage, `user "a": field ttft`},
		{"missing file", []string{"report", "nope.jsonl"}, ExitError, "nope.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runReportCLI(tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.msg)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, errOut)
			}
		})
	}
}
