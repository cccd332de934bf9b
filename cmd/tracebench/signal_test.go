package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tracebench/tracebench/cmd/tracebench/cli"
	"github.com/tracebench/tracebench/internal/testfixtures"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// TestMain lets the test binary act as tracebench itself when asked, so
// signal tests run the real command in a child process.
func TestMain(m *testing.M) {
	if os.Getenv("TRACEBENCH_AS_MAIN") == "1" {
		os.Exit(cli.Main())
	}
	os.Exit(m.Run())
}

// child is a tracebench process run by a test.
type child struct {
	cmd *exec.Cmd
	// lines receives the child's stderr lines; closed at EOF.
	lines chan string
	// eof is closed once the stderr reader has read everything: only
	// then may cmd.Wait run (os/exec).
	eof chan struct{}
	// exited is closed once cmd.Wait has returned; cmd.ProcessState is
	// set from then on.
	exited chan struct{}
	mu     sync.Mutex
	all    []string
}

// stderr returns every stderr line seen so far, for failure messages.
func (c *child) stderr() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.all, "\n")
}

// waitLine waits until a stderr line contains s.
func (c *child) waitLine(t *testing.T, s string) {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("stderr ended without %q:\n%s", s, c.stderr())
			}
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("no %q on stderr within 60 s:\n%s", s, c.stderr())
		}
	}
}

// startReplay runs `tracebench replay args... --out out` in a child
// process and waits until it has written n Results.
func startReplay(t *testing.T, out string, n int, args ...string) *child {
	t.Helper()
	c := startChild(t, append(append([]string{"replay"}, args...), "--out", out)...)
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for countResults(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %d results within 60 s; stderr:\n%s", n, c.stderr())
		}
		<-tick.C
	}
	return c
}

// startChild runs `tracebench args...` in a child process.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TRACEBENCH_AS_MAIN=1")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 1024), eof: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(c.eof)
		defer close(c.lines)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			c.mu.Lock()
			c.all = append(c.all, sc.Text())
			c.mu.Unlock()
			select {
			case c.lines <- sc.Text():
			default: // nobody waits for lines now; keep them in all only
			}
		}
	}()
	// The one cmd.Wait, after the reader's EOF; cleanup kills a child
	// still running and waits for that Wait rather than calling its own.
	go func() {
		<-c.eof
		cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-c.exited })
	return c
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

// hangingTarget is a live backend on loopback: it lists model "m" and
// answers every other completion at once while holding the rest open
// until the client goes away, so a drain never ends by itself.
func hangingTarget(t *testing.T) string {
	t.Helper()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	})
	mux.HandleFunc("/v1/completions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"a\",\"finish_reason\":null}]}\n\n")
		w.(http.Flusher).Flush()
		if n.Add(1)%2 == 0 {
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}],"+
			"\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// resultClasses counts a results file's Results by error class.
func resultClasses(t *testing.T, path string) map[string]int {
	t.Helper()
	_, rs, _ := testfixtures.ReadResults(t, path)
	classes := map[string]int{}
	for _, r := range rs {
		classes[r.ErrClass]++
	}
	return classes
}

// checkReport runs `tracebench report` on the results file and checks
// it reads at least n Results and the stop reason.
func checkReport(t *testing.T, out string, n int, wantStop string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"report", out, "--format", "json"}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("tracebench report exit %d: %s", code, stderr.String())
	}
	sum, err := metrics.Summarize(out, metrics.DefaultOptions())
	if err != nil {
		t.Fatalf("report cannot read the results file: %v", err)
	}
	if sum.Requests < int64(n) {
		t.Fatalf("%d results, want at least the %d seen before the signal", sum.Requests, n)
	}
	got := ""
	if sum.Stop != nil {
		got = string(sum.Stop.Reason)
	}
	if got != wantStop {
		t.Fatalf("stop reason %q, want %q", got, wantStop)
	}
}

func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	mock := []string{"--mock", "2", "--mock-profile", "fast", "--workload", "shared-prefix",
		"--workload-param", "requests=100000", "--rate", "100"}
	tests := []struct {
		name     string
		args     []string
		signal   func(t *testing.T, c *child)
		wantCode int
		wantStop string // "" = no stop line
		// wantCanceled: whether Results canceled mid-request may appear.
		wantCanceled bool
	}{
		{"SIGINT stops, drains in-flight streams and writes", append(mock, "--grace", "60s"),
			func(t *testing.T, c *child) { c.cmd.Process.Signal(os.Interrupt) },
			cli.ExitInterrupted, "interrupted", false},
		{"SIGINT cancels what the grace period leaves", []string{"--target", hangingTarget(t), "--rate", "50",
			"--workload", "shared-prefix", "--workload-param", "requests=100000", "--grace", "200ms"},
			func(t *testing.T, c *child) { c.cmd.Process.Signal(os.Interrupt) },
			cli.ExitInterrupted, "interrupted", true},
		{"second SIGINT exits at once", []string{"--target", hangingTarget(t), "--rate", "50",
			"--workload", "shared-prefix", "--workload-param", "requests=100000", "--grace", "1h"},
			func(t *testing.T, c *child) {
				c.cmd.Process.Signal(os.Interrupt)
				c.waitLine(t, "Ctrl-C again")
				c.cmd.Process.Signal(os.Interrupt)
			}, cli.ExitInterrupted, "", false},
		{"SIGKILL leaves a readable file", mock,
			func(t *testing.T, c *child) { c.cmd.Process.Signal(syscall.SIGKILL) }, -1, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.jsonl")
			c := startReplay(t, out, 10, tc.args...)
			tc.signal(t, c)
			select {
			case <-c.exited:
			case <-time.After(90 * time.Second):
				t.Fatalf("the run did not exit within 90 s of the signal; stderr:\n%s", c.stderr())
			}
			if code := c.cmd.ProcessState.ExitCode(); code != tc.wantCode {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tc.wantCode, c.stderr())
			}
			checkReport(t, out, 10, tc.wantStop)
			if n := resultClasses(t, out)[results.ErrCanceled]; (n > 0) != tc.wantCanceled {
				t.Fatalf("%d canceled Results; want some: %v", n, tc.wantCanceled)
			}
		})
	}
}
