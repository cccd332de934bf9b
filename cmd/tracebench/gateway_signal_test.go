package main

import (
	"bufio"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tracebench/tracebench/results"
)

// TestGatewaySIGTERM: on SIGTERM the gateway stops accepting, lets the
// requests in flight finish for --grace, cuts the rest, writes the
// results file with every request and its stop line, and exits 0.
func TestGatewaySIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	out := filepath.Join(t.TempDir(), "gw.jsonl")
	c := startChild(t, "gateway", "--target", hangingTarget(t), "--port", "0", "--grace", "300ms", "--out", out)
	c.waitLine(t, "gateway listening on")
	m := regexp.MustCompile(`gateway listening on (http://[0-9.:]+)`).FindStringSubmatch(c.stderr())
	if m == nil {
		t.Fatalf("no address in:\n%s", c.stderr())
	}
	url := m[1]
	// The target answers the first request at once and holds the
	// second open until its client goes away.
	for i, hold := range []bool{false, true} {
		resp, err := http.Post(url+"/v1/completions", "application/json",
			strings.NewReader(`{"prompt":"hello","max_tokens":1,"stream":true}`))
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		defer resp.Body.Close()
		read := func() error { _, err := io.ReadAll(resp.Body); return err }
		if hold {
			read = func() error { _, err := bufio.NewReader(resp.Body).ReadString('\n'); return err }
		}
		if err := read(); err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d, read: %v", i, resp.StatusCode, err)
		}
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(60 * time.Second):
		t.Fatalf("the gateway did not exit within 60 s of SIGTERM; stderr:\n%s", c.stderr())
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", code, c.stderr())
	}
	checkReport(t, out, 2, "interrupted")
	if got := resultClasses(t, out); got[""] != 1 || got[results.ErrCanceled] != 1 {
		t.Fatalf("results by class %v: want the finished request ok and the held one canceled", got)
	}
}
