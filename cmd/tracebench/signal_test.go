package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracebench/tracebench/cmd/tracebench/cli"
	"github.com/tracebench/tracebench/reports"
)

// TestMain lets the test binary act as tracebench itself when asked, so
// signal tests run the real command in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("TRACEBENCH_AS_MAIN") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// startReplay runs a long replay against an in-process mock fleet in a
// child process and waits until it has written n Results.
func startReplay(t *testing.T, out string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "replay", "--mock", "2", "--mock-preset", "fast", "--workload", "shared-prefix",
		"--workload-param", "requests=100000", "--rate", "100", "--grace", "2s", "--out", out)
	cmd.Env = append(os.Environ(), "TRACEBENCH_AS_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for countResults(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %d results within 60 s; stderr:\n%s", n, stderr.String())
		}
		<-tick.C
	}
	return cmd
}

func countResults(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `{"result"`) {
			n++
		}
	}
	return n
}

func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	tests := []struct {
		name     string
		sig      os.Signal
		wantCode int
		wantStop string // "" = no stop line (killed)
	}{
		{"SIGINT stops, drains and writes", os.Interrupt, cli.ExitInterrupted, "interrupted"},
		{"SIGKILL leaves a readable file", syscall.SIGKILL, -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			cmd := startReplay(t, out, 20)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.wantCode {
				t.Fatalf("exit code %d, want %d", code, tc.wantCode)
			}
			sum, err := reports.Summarize(out, reports.DefaultOptions())
			if err != nil {
				t.Fatalf("report cannot read the results file: %v", err)
			}
			if sum.Requests < 20 {
				t.Fatalf("%d results, want at least the 20 seen before the signal", sum.Requests)
			}
			got := ""
			if sum.Stop != nil {
				got = sum.Stop.Reason
			}
			if got != tc.wantStop {
				t.Fatalf("stop reason %q, want %q", got, tc.wantStop)
			}
		})
	}
}
